package uring

import "unsafe"

// Compile-time checks of every struct the binding lays out against the
// kernel's ABI (include/uapi/linux/io_uring.h): each pair fails to build,
// with a constant overflowing or negative array length, unless the size or
// offset is exactly the kernel's, on every GOARCH (uint64 fields are placed
// at 8-byte offsets, so 386's 4-byte alignment lays them out the same).
var (
	// struct io_uring_sqe: 64 bytes.
	_ [unsafe.Sizeof(SQE{}) - 64]byte
	_ [64 - unsafe.Sizeof(SQE{})]byte
	_ [unsafe.Offsetof(SQE{}.FD) - 4]byte
	_ [4 - unsafe.Offsetof(SQE{}.FD)]byte
	_ [unsafe.Offsetof(SQE{}.Addr) - 16]byte
	_ [16 - unsafe.Offsetof(SQE{}.Addr)]byte
	_ [unsafe.Offsetof(SQE{}.OpFlags) - 28]byte
	_ [28 - unsafe.Offsetof(SQE{}.OpFlags)]byte
	_ [unsafe.Offsetof(SQE{}.UserData) - 32]byte
	_ [32 - unsafe.Offsetof(SQE{}.UserData)]byte
	_ [unsafe.Offsetof(SQE{}.BufIndex) - 40]byte
	_ [40 - unsafe.Offsetof(SQE{}.BufIndex)]byte
	_ [unsafe.Offsetof(SQE{}.Addr3) - 48]byte
	_ [48 - unsafe.Offsetof(SQE{}.Addr3)]byte

	// struct io_uring_cqe: 16 bytes, res at 8.
	_ [unsafe.Sizeof(CQE{}) - 16]byte
	_ [16 - unsafe.Sizeof(CQE{})]byte
	_ [unsafe.Offsetof(CQE{}.Res) - 8]byte
	_ [8 - unsafe.Offsetof(CQE{}.Res)]byte

	// struct io_uring_params: 120 bytes, sq_off at 40, cq_off at 80.
	_ [unsafe.Sizeof(uringParams{}) - 120]byte
	_ [120 - unsafe.Sizeof(uringParams{})]byte
	_ [unsafe.Offsetof(uringParams{}.sqOff) - 40]byte
	_ [40 - unsafe.Offsetof(uringParams{}.sqOff)]byte
	_ [unsafe.Offsetof(uringParams{}.cqOff) - 80]byte
	_ [80 - unsafe.Offsetof(uringParams{}.cqOff)]byte

	// struct io_sqring_offsets and io_cqring_offsets: 40 bytes each.
	_ [unsafe.Sizeof(sqringOffsets{}) - 40]byte
	_ [40 - unsafe.Sizeof(sqringOffsets{})]byte
	_ [unsafe.Sizeof(cqringOffsets{}) - 40]byte
	_ [40 - unsafe.Sizeof(cqringOffsets{})]byte

	// struct io_uring_getevents_arg: 24 bytes, ts at 16.
	_ [unsafe.Sizeof(getEventsArg{}) - 24]byte
	_ [24 - unsafe.Sizeof(getEventsArg{})]byte
	_ [unsafe.Offsetof(getEventsArg{}.ts) - 16]byte
	_ [16 - unsafe.Offsetof(getEventsArg{}.ts)]byte

	// struct io_uring_buf_reg: 40 bytes.
	_ [unsafe.Sizeof(bufReg{}) - 40]byte
	_ [40 - unsafe.Sizeof(bufReg{})]byte

	// struct io_uring_buf: 16 bytes, bid at 12 (the ring's tail in entry 0
	// at 14).
	_ [unsafe.Sizeof(ioUringBuf{}) - 16]byte
	_ [16 - unsafe.Sizeof(ioUringBuf{})]byte
	_ [unsafe.Offsetof(ioUringBuf{}.bid) - 12]byte
	_ [12 - unsafe.Offsetof(ioUringBuf{}.bid)]byte

	// struct io_uring_rsrc_update: 16 bytes.
	_ [unsafe.Sizeof(rsrcUpdate{}) - 16]byte
	_ [16 - unsafe.Sizeof(rsrcUpdate{})]byte
)
