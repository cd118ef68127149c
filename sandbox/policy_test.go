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
	for p, want := range map[Policy]string{Required: "required", Off: "off", FromEnv: "$" + PolicyVariable, 9: "Policy(9)"} {
		if got := p.String(); got != want {
			t.Errorf("%d.String() = %q, want %q", p, got, want)
		}
	}
	var zero Policy
	if zero != FromEnv {
		t.Error("the zero Policy must be FromEnv")
	}
	// Every value the table accepts round-trips.
	for _, v := range policyValues {
		p, err := ParsePolicy(v)
		if err != nil || p.String() != v {
			t.Errorf("table value %q: %v, %v", v, p, err)
		}
	}
}

// TestZeroPolicyReadsTheVariable: a runtime that leaves Config.Policy alone
// follows the operator's ASTRID_SANDBOX_POLICY; one that sets Required
// keeps the sandbox whatever the variable says.
func TestZeroPolicyReadsTheVariable(t *testing.T) {
	ws := t.TempDir()
	for _, tc := range []struct {
		env     string
		policy  Policy
		wrapped bool
		bad     bool
	}{
		{env: "", policy: FromEnv, wrapped: true},
		{env: "OFF", policy: FromEnv, wrapped: false},
		{env: "required", policy: FromEnv, wrapped: true},
		{env: "of", policy: FromEnv, bad: true},
		{env: "off", policy: Required, wrapped: true},
		{env: "required", policy: Off, wrapped: false},
	} {
		t.Setenv(PolicyVariable, tc.env)
		w, err := PrefixFor("darwin", Config{Workspace: ws, Policy: tc.policy})
		switch {
		case tc.bad:
			if !errors.Is(err, ErrBadPolicy) {
				t.Errorf("%s=%q, %v: err = %v, want ErrBadPolicy", PolicyVariable, tc.env, tc.policy, err)
			}
		case err != nil:
			t.Errorf("%s=%q, %v: %v", PolicyVariable, tc.env, tc.policy, err)
		case (w.Program != "") != tc.wrapped:
			t.Errorf("%s=%q, %v: Program = %q, want wrapped = %v", PolicyVariable, tc.env, tc.policy, w.Program, tc.wrapped)
		}
	}
}
