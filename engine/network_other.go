//go:build !linux

package engine

import "errors"

// epollNetwork is Linux's: elsewhere only the portable transport runs.
func epollNetwork() (network, error) {
	return nil, errors.New("the epoll transport is only available on Linux")
}

// uringNetwork is Linux's too.
func uringNetwork() (network, error) {
	return nil, errors.New("the io_uring transport is only available on Linux")
}
