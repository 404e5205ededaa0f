//go:build !linux

package netpoll

import "errors"

// Epoll is Linux's: elsewhere only the portable transport runs.
func Epoll() (Network, error) {
	return nil, errors.New("the epoll transport is only available on Linux")
}

// Uring is Linux's too.
func Uring() (Network, error) {
	return nil, errors.New("the io_uring transport is only available on Linux")
}
