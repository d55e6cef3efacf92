package traindoc.lib.progress_fairseq_test

import data.traindoc.lib.progress

_re(id) := p.pattern if {
	some p in progress.progress_patterns
	p.id == id
}

_step(id, text) := m[0][1] if m := regex.find_all_string_submatch_n(_re(id), text, 1)

test_fairseq_tqdm_bar if {
	_step("progress.fairseq-tqdm", "epoch 001:  17%|█▋        | 700/4124 [12:50<1:02:46,  1.10s/it, loss=8.912, nll_loss=8.011, num_updates=350]") == "700"
	not regex.match(_re("progress.fairseq-tqdm"), "2026-05-26 14:03:10 | INFO | fairseq.trainer | begin training epoch 1")
}

test_fairseq_num_updates if {
	_step("progress.fairseq-updates", "2026-05-26 15:05:10 | INFO | train_inner | epoch 001:   1000 / 4124 loss=8.112, nll_loss=7.205, ppl=147.6, num_updates=500, lr=0.0002") == "500"
	not regex.match(_re("progress.fairseq-updates"), "fairseq_cli.train | {'optimization': {'max_update': 120000, 'update_freq': [2]}}")
}
