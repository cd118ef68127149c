package sandbox

// The fixture of the forged-name attack (escape_proxy_names_linux_test.go):
// the SOCKS5 client that asks for a name holding control characters.

// proxyForgeScript asks the proxy, over SOCKS5, for the name prefix
// followed by a newline and an escape sequence: a line of its own making
// in the caller's log, and a terminal control sequence, if the refusal
// repeats it as is.
func proxyForgeScript(prefix string) string {
	return `import socket
name = b"` + prefix + `\nsandbox: forged line \x1b]0;owned\x07"
s = socket.create_connection(("127.0.0.1", 1080))
s.sendall(b"\x05\x01\x00")
s.recv(2)
s.sendall(b"\x05\x01\x00\x03" + bytes([len(name)]) + name + b"\x00\x50")
print("reply", s.recv(10)[1])
`
}
