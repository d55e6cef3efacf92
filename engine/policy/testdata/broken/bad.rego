package traindoc.rules.site.bad

findings contains f if {
	f := {"a": 1
}
