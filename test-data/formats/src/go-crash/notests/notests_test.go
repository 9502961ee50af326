// Test files, but no tests in them.
package notests

func helper() int { return Double(2) }
