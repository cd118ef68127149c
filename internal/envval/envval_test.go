package envval

import "testing"

func TestKinds(t *testing.T) {
	for _, c := range []struct {
		kind, v string
		want    bool
	}{
		{"url-password", "redis://user:secret@127.0.0.1:6379/0", true},
		{"url-password", "redis://:secret@127.0.0.1", true},
		{"url-password", "postgres://u:p@h/db", true},
		{"url-password", "jdbc:postgresql://u:p@h/db", true},
		{"url-password", "mongodb+srv://app:pw@cluster0.example.net/?retryWrites=true", true},
		{"url-password", "https://a.example/simple https://u:tok@b.example/simple", true},
		{"url-password", "https://x-access-token:ghp_x@github.com/o/r.git", true},
		{"url-password", "https://github.com/o/r.git", false},
		{"url-password", "ssh://git@github.com/o/r", false},
		{"url-password", "git@github.com:o/r.git", false},
		{"url-password", "http://user@proxy:3128", false},
		{"url-password", "http://u:@proxy:3128", false},
		{"url-password", "http://[::1]:8080/a@b", false},
		{"url-password", "https://example.com/x?u=a:b@c", false},
		{"url-password", "://u:p@h", false},
		{"dsn-password", "host=db user=app password=secret dbname=x", true},
		{"dsn-password", "Server=db;Database=x;User Id=app;Password=secret;", true},
		{"dsn-password", "Driver={x};PWD=secret", true},
		{"dsn-password", "root:secret@tcp(127.0.0.1:3306)/db", true},
		{"dsn-password", "app:pw@unix(/run/mysqld/mysqld.sock)/db", true},
		{"dsn-password", "jdbc:mysql://h/db?user=u&password=secret", true},
		{"dsn-password", "host=db user=app dbname=x", false},
		{"dsn-password", "password=", false},
		{"dsn-password", "root@tcp(127.0.0.1:3306)/db", false},
		{"dsn-password", "--password-file=/run/secret", false},
		{"dsn-password", "/usr/local/bin:/usr/bin", false},
	} {
		if got := Kinds[c.kind](c.v); got != c.want {
			t.Errorf("%s(%q) = %v, want %v", c.kind, c.v, got, c.want)
		}
	}
}
