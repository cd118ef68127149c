package sandbox

import (
	"errors"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// refuseCase sets up, in dir, a configuration with workspace ws that one
// refuse row refuses.
type refuseCase func(t *testing.T, dir, ws string) Config

// refuseCases are TestRefuseRows' and TestRefuseRowRemoved's cases, one
// per row of the refuse section.
func refuseCases() map[string]refuseCase {
	return map[string]refuseCase{
		"no-link-grant": func(t *testing.T, dir, ws string) Config {
			link(t, mkdir(t, dir, "host"), ws, "out")
			return Config{Workspace: ws, Write: []string{ws + "/out"}}
		},
		"no-link-hidden": func(t *testing.T, dir, ws string) Config {
			link(t, mkdir(t, dir, "secret"), ws, "hl")
			return Config{Workspace: ws, Hidden: []string{ws + "/hl"}}
		},
		"no-link-home": func(t *testing.T, dir, ws string) Config {
			shared := mkdir(t, dir, "shared")
			link(t, mkdir(t, dir, "realhome"), shared, "me")
			t.Setenv("HOME", shared+"/me")
			return Config{Workspace: ws, Write: []string{shared}}
		},
		"no-link-cache": func(t *testing.T, dir, ws string) Config {
			link(t, mkdir(t, dir, "cache"), ws, "clink")
			t.Setenv("XDG_CACHE_HOME", ws+"/clink")
			// The hidden path derived from XDG_CACHE_HOME goes through the
			// same link (row no-link-hidden, first in table order):
			// revealed, so this row alone refuses.
			return Config{Workspace: ws, Reveal: []string{ws + "/clink/huggingface/token"}}
		},
		"no-link-git": func(t *testing.T, dir, ws string) Config {
			mkdir(t, ws, "real", "hooks")
			link(t, ws+"/real", ws, "glink")
			writeFile(t, ws, ".git", "gitdir: glink\n")
			return Config{Workspace: ws}
		},
		"no-link-socket": func(t *testing.T, dir, ws string) Config {
			sock := filepath.Join(dir, "s.sock")
			l, err := net.Listen("unix", sock)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { l.Close() })
			link(t, sock, ws, "slink")
			return Config{Workspace: ws, Sockets: []string{ws + "/slink"}}
		},
		"no-link-redact": func(t *testing.T, dir, ws string) Config {
			real := writeFile(t, dir, "npmrc", "registry=https://example.invalid/\n")
			link(t, real, ws, "npmrc-link")
			home := os.Getenv("HOME")
			if err := os.Symlink(ws+"/npmrc-link", home+"/.npmrc"); err != nil {
				t.Fatal(err)
			}
			return Config{Workspace: ws}
		},
		"no-unreadable-hidden": func(t *testing.T, dir, ws string) Config {
			locked := mkdir(t, ws, "conf")
			orig := lstat
			lstat = func(name string) (fs.FileInfo, error) {
				if strings.HasPrefix(name, locked+"/") {
					return nil, &fs.PathError{Op: "lstat", Path: name, Err: os.ErrPermission}
				}
				return orig(name)
			}
			t.Cleanup(func() { lstat = orig })
			return Config{Workspace: ws, Hidden: []string{locked + "/secret.env"}}
		},
		"no-root-grant": func(t *testing.T, dir, ws string) Config {
			return Config{Workspace: ws, Write: []string{"/"}}
		},
		"no-root-hidden": func(t *testing.T, dir, ws string) Config {
			return Config{Workspace: ws, Hidden: []string{"/"}}
		},
		"no-hidden-workspace": func(t *testing.T, dir, ws string) Config {
			return Config{Workspace: ws, Hidden: []string{ws}}
		},
		"no-home-grant": func(t *testing.T, dir, ws string) Config {
			t.Setenv("HOME", ws+"/me")
			mkdir(t, ws, "me")
			return Config{Workspace: ws}
		},
		"no-hidden-second-name": func(t *testing.T, dir, ws string) Config {
			env := writeFile(t, ws, ".env", "API_TOKEN=SECRET")
			if err := os.Link(env, ws+"/.cache-x"); err != nil {
				t.Fatal(err)
			}
			return Config{Workspace: ws, Hidden: []string{env}}
		},
		"no-redact-second-name": func(t *testing.T, dir, ws string) Config {
			npmrc := writeFile(t, os.Getenv("HOME"), ".npmrc", "//r.example/:_authToken=SECRET\n")
			if err := os.Link(npmrc, mkdir(t, dir, "backup")+"/npmrc"); err != nil {
				t.Fatal(err)
			}
			return Config{Workspace: ws}
		},
		"no-loader-writable": func(t *testing.T, dir, ws string) Config {
			t.Setenv("LD_LIBRARY_PATH", mkdir(t, ws, "lib"))
			return Config{Workspace: ws}
		},
		"no-symlink-git-dir": func(t *testing.T, dir, ws string) Config {
			link(t, mkdir(t, dir, "repo.git"), ws, ".git")
			return Config{Workspace: ws}
		},
		"no-symlink-protected": func(t *testing.T, dir, ws string) Config {
			link(t, mkdir(t, dir, "vscode"), ws, ".vscode")
			return Config{Workspace: ws}
		},
		"no-symlink-cache": func(t *testing.T, dir, ws string) Config {
			link(t, mkdir(t, dir, "elsewhere"), os.Getenv("XDG_CACHE_HOME"), "sandtable")
			return Config{Workspace: ws}
		},
		"no-foreign-cache": func(t *testing.T, dir, ws string) Config {
			if os.Geteuid() != 0 {
				t.Skip("needs root to give a directory to another user")
			}
			d := mkdir(t, os.Getenv("XDG_CACHE_HOME"), "sandtable")
			if err := os.Chown(d, 65534, 65534); err != nil {
				t.Fatal(err)
			}
			return Config{Workspace: ws}
		},
		"no-oversized-git-file": func(t *testing.T, dir, ws string) Config {
			writeFile(t, ws, ".git/config", strings.Repeat("#", maxGitConfig+1))
			return Config{Workspace: ws}
		},
		"no-unclean-derived": func(t *testing.T, dir, ws string) Config {
			t.Setenv("GNUPGHOME", "gpg")
			return Config{Workspace: ws}
		},
		"no-nonsocket-grant": func(t *testing.T, dir, ws string) Config {
			return Config{Workspace: ws, Sockets: []string{mkdir(t, dir, "not-a-socket")}}
		},
		"no-cache-grant": func(t *testing.T, dir, ws string) Config {
			other := mkdir(t, os.Getenv("XDG_CACHE_HOME"), "sandtable", "caches", "ws-other", "go-mod")
			return Config{Workspace: ws, Read: []string{other}}
		},
		"no-oversized-argv": func(t *testing.T, dir, ws string) Config {
			// 3000 hidden files: a mount of three arguments each.
			d := mkdir(t, dir, "many")
			cfg := Config{Workspace: ws}
			for i := range 3000 {
				cfg.Hidden = append(cfg.Hidden, writeFile(t, d, "f"+strconv.Itoa(i), ""))
			}
			return cfg
		},
		"no-tiny-memory-limit": func(t *testing.T, dir, ws string) Config {
			return Config{Workspace: ws, Limits: Limits{Memory: 64 << 10}}
		},
		"no-full-cache": func(t *testing.T, dir, ws string) Config {
			fullCacheFS(t, 512<<10, 1<<20)
			return Config{Workspace: ws}
		},
		"no-inodeless-cache": func(t *testing.T, dir, ws string) Config {
			fullCacheFS(t, 1<<30, 100)
			return Config{Workspace: ws}
		},
		// The macOS rows (darwinRows): the plan is made for darwin.
		"no-caret-hidden": func(t *testing.T, dir, ws string) Config {
			return Config{Workspace: ws, Hidden: []string{ws + "/a^b.env"}}
		},
		"no-unfoldable-hidden": func(t *testing.T, dir, ws string) Config {
			return Config{Workspace: ws, Hidden: []string{ws + "/ключ.pem"}}
		},
		"no-caret-protected": func(t *testing.T, dir, ws string) Config {
			return Config{Workspace: mkdir(t, dir, "w^s")}
		},
		"no-unfoldable-protected": func(t *testing.T, dir, ws string) Config {
			writeFile(t, ws, ".git/config", "[core]\n\thooksPath = хуки\n")
			return Config{Workspace: ws}
		},
		"no-caret-home": func(t *testing.T, dir, ws string) Config {
			t.Setenv("HOME", mkdir(t, dir, "h^me"))
			return Config{Workspace: ws}
		},
	}
}

// fullCacheFS makes the file system under the caches' root report free
// bytes and inodes for the rest of the test (statfs of a full disk,
// without filling one: TestRunCacheDiskFull fills a tmpfs).
func fullCacheFS(t *testing.T, free, inodes uint64) {
	orig := fsSpaceOf
	fsSpaceOf = func(dir string) *fsSpace {
		s := orig(dir)
		if s != nil && strings.HasPrefix(dir, os.Getenv("XDG_CACHE_HOME")+"/") {
			s.free, s.inodes, s.files = free, inodes, max(s.files, inodes)
		}
		return s
	}
	t.Cleanup(func() { fsSpaceOf = orig })
}

// refuseRowError is the sentinel a row's refusal wraps: ErrBadPath but
// for a limit's and the caches' file system's.
func refuseRowError(id string) error {
	switch id {
	case "no-tiny-memory-limit":
		return ErrBadLimit
	case "no-full-cache", "no-inodeless-cache":
		return ErrUnavailable
	}
	return ErrBadPath
}

// refuseRowGOOS is the platform a row's case is planned for: the macOS
// rows are refused only where the macOS profile is built.
func refuseRowGOOS(id string) string {
	switch id {
	case "no-caret-hidden", "no-unfoldable-hidden", "no-caret-protected", "no-caret-home", "no-unfoldable-protected":
		return "darwin"
	}
	return "linux"
}

// setupRefuseCase runs row id's case in a fresh directory with its own
// HOME and XDG_CACHE_HOME.
func setupRefuseCase(t *testing.T, cases map[string]refuseCase, id string) Config {
	t.Helper()
	setup, ok := cases[id]
	if !ok {
		t.Fatalf("refuse row %q has no case here", id)
	}
	dir := realTempDir(t)
	t.Setenv("HOME", mkdir(t, dir, "home"))
	t.Setenv("XDG_CACHE_HOME", mkdir(t, dir, "xdg-cache"))
	return setup(t, dir, mkdir(t, dir, "ws"))
}

// TestRefuseRows gives every row of the refuse section (rules/common.yaml)
// a configuration only that row refuses: the error must name the row, so
// a deleted row, or one that no longer names the input, fails here. A row
// without a case fails too.
func TestRefuseRows(t *testing.T) {
	cases := refuseCases()
	for _, row := range refuseRows {
		t.Run(row.id, func(t *testing.T) {
			cfg := setupRefuseCase(t, cases, row.id)
			goos := refuseRowGOOS(row.id)
			_, err := newPlan(goos, cfg)
			if !errors.Is(err, refuseRowError(row.id)) || !strings.Contains(err.Error(), "(refuse: "+row.id+")") {
				t.Errorf("newPlan(%s) = %v, want a refusal by %s", goos, err, row.id)
			}
		})
	}
	for id := range cases {
		if refuseRowExists(id) {
			continue
		}
		// A case whose row is gone (make mutate deletes rows): say
		// whether its configuration now runs, as it must when the row
		// was its only refusal (TestRefuseRowRemoved).
		t.Run(id+"/row-missing", func(t *testing.T) {
			cfg := setupRefuseCase(t, cases, id)
			if _, err := newPlan(refuseRowGOOS(id), cfg); err == nil {
				t.Errorf("case %q: no such refuse row; its configuration is now planned", id)
			} else {
				t.Errorf("case %q: no such refuse row; its configuration is still refused: %v", id, err)
			}
		})
	}
}

func refuseRowExists(id string) bool {
	for _, row := range refuseRows {
		if row.id == id {
			return true
		}
	}
	return false
}

// TestRefuseChecksDispatch: every check kind the generator knows has its
// function here.
func TestRefuseChecksDispatch(t *testing.T) {
	for k := range refuseCheckKind(numRefuseChecks) {
		s := refuseSubject{refuseCtx: &refuseCtx{}}
		if err := s.run(&refuseRow{check: k}); err != nil {
			t.Errorf("check %d: %v", k, err)
		}
	}
	s := refuseSubject{refuseCtx: &refuseCtx{}}
	if err := s.run(&refuseRow{check: numRefuseChecks}); err == nil {
		t.Errorf("an unknown check passed")
	}
}
