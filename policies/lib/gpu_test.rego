package traindoc.lib.gpu_test

import data.traindoc.lib.gpu

# The rules splice faults and actions into their messages: each needs
# both languages, and the Chinese one must be a translation, not a copy.
_bilingual(t) if {
	t.en != ""
	regex.match(`\p{Han}`, t.zh)
}

test_xid_catalog_is_bilingual if {
	every xid, e in gpu.xid_catalog {
		_bilingual(e.fault)
		_bilingual(e.action)
		startswith(e.fault.en, sprintf("Xid %s ", [xid]))
		startswith(e.fault.zh, sprintf("Xid %s，", [xid]))
	}
}

test_other_faults_are_bilingual if {
	every _, e in gpu.other_faults {
		_bilingual(e.fault)
		_bilingual(e.action)
	}
}

# The worst fault is chosen on severity, then Xid, whatever the language.
test_worst_prefers_severity if {
	fs := gpu.xid_faults("NVRM: Xid (PCI:0000:ca:00): 63, pid=1, name=x, Row Remapper\nNVRM: Xid (PCI:0000:ca:00): 48, pid=1, name=x, DBE")
	gpu.worst(fs).xid == "48"
}
