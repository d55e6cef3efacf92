package traindoc.lib.progress_test

import data.traindoc.lib.progress

_re(id) := p.pattern if {
	some p in progress.progress_patterns
	p.id == id
}

_step(id, text) := m[0][1] if m := regex.find_all_string_submatch_n(_re(id), text, 1)

test_global_step if {
	_step("progress.global-step", "Epoch 0: : 12%|█▏| 1200/10000 [20:00<2:26:40, reduced_train_loss=2.41, global_step=1199.0, consumed_samples=614400.0]") == "1199"
	_step("progress.global-step", "[2026/05/05 22:41:07] ppocr INFO: epoch: [1/500], global_step: 120, lr: 0.001000, loss: 3.02") == "120"
	not regex.match(_re("progress.global-step"), "[Rank 0] [Torch] Checkpoint global_step200 is about to be saved!")
}

test_mmengine_and_detectron2 if {
	_step("progress.mmengine-iter", "10/30 22:19:57 - mmengine - INFO - Iter(train) [ 1200/80000]  lr: 1.9813e-04  eta: 2:44:49  loss: 2.5128") == "1200"
	_step("progress.detectron2", "[11/01 20:14:15 d2.utils.events]: eta: 5:41:49  iter: 379  total_loss: 1.707  loss_cls: 1.184") == "379"
}
