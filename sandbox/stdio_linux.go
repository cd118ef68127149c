package sandbox

import "golang.org/x/sys/unix"

const termiosGet = unix.TCGETS

// canSplice: one side of every copy is a pipe, so splice(2) moves the bytes
// without a trip through this process.
const canSplice = true

// spliceChunk moves up to 64 KB from s to d, never blocking on a pipe.
func spliceChunk(s, d int) (int64, error) {
	return unix.Splice(s, nil, d, nil, 64<<10, unix.SPLICE_F_NONBLOCK|unix.SPLICE_F_MOVE)
}
