package sandbox

import "testing"

func TestVersionAtLeast(t *testing.T) {
	for out, want := range map[string]bool{
		"bubblewrap 0.8.0\n": true,
		"bubblewrap 0.11.0":  true,
		"bubblewrap 1.0":     true,
		"bubblewrap 0.7.9":   false,
		"bubblewrap 0.4.1":   false,
		"bubblewrap":         false,
		"":                   false,
		"bubblewrap x.y":     false,
	} {
		if got := versionAtLeast(out, 0, 8); got != want {
			t.Errorf("versionAtLeast(%q) = %v", out, got)
		}
	}
}
