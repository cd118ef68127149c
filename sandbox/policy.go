package sandbox

import (
	"fmt"
	"os"
	"strconv"
	"strings"
)

// Policy is whether the sandbox is required or off. There is deliberately no
// "sandbox if it works, else run anyway" value: either the sandbox applies,
// or an operator explicitly accepted that it does not. [Off] is that
// acceptance, and it holds on every machine alike, so a command that runs
// unsandboxed on one does not run sandboxed on the next.
type Policy uint8

const (
	// FromEnv, the zero value, is the policy PolicyVariable names when the
	// spawn is built, so an operator's opt-out reaches every runtime that
	// leaves the field alone. Unset or empty, it is the table's default,
	// [Required]: a forgotten field still fails closed, and a value that
	// names no policy is an error, never [Off].
	FromEnv Policy = iota
	// Required refuses to spawn without a working sandbox, whatever the
	// environment says.
	Required
	// Off runs the command unwrapped, without a warning, whether or not a
	// sandbox would work here. The stripped environment variables are
	// still removed.
	Off
)

// String returns the policy's name as PolicyVariable spells it; [FromEnv],
// which is no value of it, reads as the variable itself.
func (p Policy) String() string {
	switch p {
	case Required:
		return "required"
	case Off:
		return "off"
	case FromEnv:
		return "$" + PolicyVariable
	}
	return "Policy(" + strconv.Itoa(int(p)) + ")"
}

// ParsePolicy reads a policy name, ignoring case. An unknown name is an error,
// never [Off]: a typo in an opt-out must not turn the sandbox off.
func ParsePolicy(s string) (Policy, error) {
	p, ok := lookupPolicy(s)
	if !ok {
		return Required, fmt.Errorf("sandbox: policy %q: %w (accepted: %s)", s, ErrBadPolicy, acceptedPolicies())
	}
	return p, nil
}

// PolicyFromEnv reads PolicyVariable. Unset or empty means the table's
// default, [Required].
func PolicyFromEnv() (Policy, error) {
	s := os.Getenv(PolicyVariable)
	if s == "" {
		s = policyDefault
	}
	p, ok := lookupPolicy(s)
	if !ok {
		return Required, fmt.Errorf("sandbox: %s=%q: %w (accepted: %s)", PolicyVariable, s, ErrBadPolicy, acceptedPolicies())
	}
	return p, nil
}

// resolve is the policy a spawn follows: FromEnv read now, the others as
// they are.
func (p Policy) resolve() (Policy, error) {
	switch p {
	case FromEnv:
		return PolicyFromEnv()
	case Required, Off:
		return p, nil
	}
	return Required, fmt.Errorf("sandbox: policy %s: %w (accepted: %s)", p, ErrBadPolicy, acceptedPolicies())
}

// lookupPolicy accepts only the names the rule table lists, so a value the
// table drops stops parsing even if this switch still knows it.
func lookupPolicy(s string) (Policy, bool) {
	for _, v := range policyValues {
		if !strings.EqualFold(s, v) {
			continue
		}
		switch v {
		case "required":
			return Required, true
		case "off":
			return Off, true
		}
	}
	return Required, false
}

func acceptedPolicies() string {
	return strings.Join(policyValues[:], ", ")
}
