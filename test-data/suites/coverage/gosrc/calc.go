package calc

// Used adds.
func Used(a, b int) int {
	return a + b
}

// Unused doubles.
func Unused(a int) int {
	doubled := a * 2
	return doubled
}
