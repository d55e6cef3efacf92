package traindoc.lib.launch_test

import data.traindoc.lib.launch

_g(containers) := {"type": "Worker", "template": {"gpuLimit": 1, "containers": containers}}

test_loader_workers_from_the_command_line if {
	launch.loader_workers(_g([{"name": "a", "command": ["python", "train.py", "--num-workers=6"]}])) == [6, "--num-workers", "template.containers[a]"]
	launch.loader_workers(_g([{"name": "a", "args": ["python train.py --dataloader_num_workers 2"]}]))[0] == 2
	launch.loader_workers(_g([{"name": "a", "command": ["python", "train.py", "--workers", "4"]}]))[0] == 4
}

# No count, a count of zero, and flags that only look alike are no workers.
test_loader_workers_none if {
	not launch.loader_workers(_g([{"name": "a", "command": ["python", "train.py"]}]))
	not launch.loader_workers(_g([{"name": "a", "command": ["python", "train.py", "--num_workers=0"]}]))
	not launch.loader_workers(_g([{"name": "a", "command": ["python", "train.py", "--max_workers=4", "--ray-workers", "2"]}]))
}

test_nproc_sources_in_order if {
	g := _g([{"name": "a", "command": ["torchrun", "--nproc-per-node", "4"], "env": {"PET_NPROC_PER_NODE": "2"}}])
	launch.nproc(g) == [8, "nprocPerNode", "spec"] with input as {"spec": {"procsPerNodeCount": 8}}
	launch.nproc(g) == [4, "--nproc_per_node", "template.containers[a]"] with input as {"spec": {}}
	launch.nproc(_g([{"name": "a", "env": {"PET_NPROC_PER_NODE": "2"}}]))[0] == 2 with input as {}
}
