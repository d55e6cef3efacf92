package mycompany.rules.gpu

findings contains {"params": {}} if {
	input.name == "x"
}
