package sandbox

import (
	"fmt"
	"testing"
)

// benchEnviron is a developer's environment of 60 variables, a few of
// which the strip-env rows remove.
func benchEnviron() []string {
	env := []string{
		"PATH=/usr/local/bin:/usr/bin:/bin", "HOME=/home/user", "USER=user", "SHELL=/bin/bash",
		"TERM=xterm-256color", "LANG=C.UTF-8", "PWD=/home/user/src", "EDITOR=vim",
		"GITHUB_TOKEN=ghp_x", "OPENAI_API_KEY=sk-x", "SSH_AUTH_SOCK=/tmp/ssh-x/agent.1", "DISPLAY=:0",
		"AWS_SECRET_ACCESS_KEY=x", "GIT_AUTHOR_NAME=me", "TOKENIZERS_PARALLELISM=false",
	}
	for i := len(env); i < 60; i++ {
		env = append(env, fmt.Sprintf("SOME_ORDINARY_SETTING_%02d=value", i))
	}
	return env
}

// BenchmarkChildEnv is the environment rules' cost per spawn: every
// variable tested against the exact names (one switch) and the patterns
// (one strings call each), and one allocation for the result.
func BenchmarkChildEnv(b *testing.B) {
	env := benchEnviron()
	b.ReportAllocs()
	var out []string
	for b.Loop() {
		out = childEnv(Config{}, env)
	}
	_ = out
}
