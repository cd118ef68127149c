package sandbox

// The builders in zz_generated.go come from the rule table; edit rules/*.yaml
// and regenerate, never the output.
//go:generate go run ../cmd/genrules
