package traindoc.rules.site.nometa

findings contains {"params": {}} if {
	input.name == "x"
}
