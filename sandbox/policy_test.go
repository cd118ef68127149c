package sandbox

import (
	"errors"
	"strings"
	"testing"
)

func TestParsePolicy(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want Policy
		ok   bool
	}{
		{"required", Required, true},
		{"REQUIRED", Required, true},
		{"Off", Off, true},
		{"off", Off, true},
		{"", Required, false},
		{"warn", Required, false},
		{"no", Required, false},
		{" off", Required, false},
		{"0", Required, false},
	} {
		got, err := ParsePolicy(tc.in)
		if tc.ok != (err == nil) || got != tc.want {
			t.Errorf("ParsePolicy(%q) = %v, %v", tc.in, got, err)
		}
		if err != nil {
			if !errors.Is(err, ErrBadPolicy) {
				t.Errorf("ParsePolicy(%q): %v is not ErrBadPolicy", tc.in, err)
			}
			if !strings.Contains(err.Error(), "required, off") {
				t.Errorf("ParsePolicy(%q): %v does not name the accepted values", tc.in, err)
			}
		}
	}
}

func TestPolicyFromEnv(t *testing.T) {
	for _, tc := range []struct {
		env  string
		want Policy
		ok   bool
	}{
		{"", Required, true},
		{"off", Off, true},
		{"OFF", Off, true},
		{"Required", Required, true},
		{"disabled", Required, false},
	} {
		t.Setenv(PolicyVariable, tc.env)
		got, err := PolicyFromEnv()
		if tc.ok != (err == nil) || got != tc.want {
			t.Errorf("%s=%q: got %v, %v", PolicyVariable, tc.env, got, err)
		}
		if err != nil && (!errors.Is(err, ErrBadPolicy) || !strings.Contains(err.Error(), PolicyVariable)) {
			t.Errorf("%s=%q: error %v", PolicyVariable, tc.env, err)
		}
	}
}

func TestPolicyString(t *testing.T) {
	for p, want := range map[Policy]string{Required: "required", Off: "off", 9: "Policy(9)"} {
		if got := p.String(); got != want {
			t.Errorf("%d.String() = %q, want %q", p, got, want)
		}
	}
	var zero Policy
	if zero != Required {
		t.Error("the zero Policy must be Required")
	}
	// Every value the table accepts round-trips.
	for _, v := range policyValues {
		p, err := ParsePolicy(v)
		if err != nil || p.String() != v {
			t.Errorf("table value %q: %v, %v", v, p, err)
		}
	}
}
