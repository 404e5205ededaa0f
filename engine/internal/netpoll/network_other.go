//go:build !linux

package netpoll

import "errors"

// Epoll is Linux's: elsewhere only the portable Stream runs.
func Epoll() (Network, error) {
	return nil, errors.New("the epoll Stream is only available on Linux")
}

// Uring is Linux's too.
func Uring() (Network, error) {
	return nil, errors.New("the io_uring Stream is only available on Linux")
}
