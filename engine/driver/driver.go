// Package driver is the boundary between the engine's client state machine
// and the protocols it speaks. A Driver turns a script command into bytes
// for the server and the server's bytes into replies; it does no I/O, keeps
// no clock and records no statistics. The engine owns the sockets, the
// buffers and the timing, and asks a driver's optional abilities
// (Pipeliner, Preparer, Transactional, Describer) by type assertion.
//
// engine/pgsql implements it for PostgreSQL, engine/resp for the Redis
// protocol. The package imports nothing from gbench but script.
package driver

import (
	"context"
	"net"

	"github.com/gbench/gbench/script"
)

// Driver speaks one protocol on one connection of one client. Requests may
// be encoded ahead of their replies (pipelining): replies come back in
// order. A Driver is used by one goroutine at a time, and allocates
// nothing in steady state.
type Driver interface {
	// Name is the protocol's name in the engine's messages: "SQL", "resp".
	Name() string
	// Encode appends the request for cmd to out, with the client's
	// variables substituted or bound. tag comes back in the Reply that
	// answers this request. An error aborts the client before anything is
	// sent; a *CommandError says how pgbench reports it.
	Encode(out []byte, cmd *script.Command, tag int, vars *script.Vars) ([]byte, error)
	// Decode decodes from in and returns how many bytes it consumed and
	// whether a reply completed, in which case *r holds it and the bytes
	// after it are left for the next call. Values a command stores
	// (\gset, \aset) go into vars. A non-nil error means the stream is
	// broken: the connection must be closed.
	Decode(in []byte, vars *script.Vars, r *Reply) (n int, done bool, err error)
	// Need returns how many undecoded bytes the last Decode that completed
	// no reply needs at least, so that the caller grows its buffer once.
	Need() int
	// Pending returns the number of requests whose reply is not decoded.
	Pending() int
}

// Status is what a reply means for the transaction.
type Status uint8

const (
	// OK: the command succeeded.
	OK Status = iota
	// Serialization: a serialization failure; the transaction may be
	// retried (pgbench's --max-tries).
	Serialization
	// Deadlock: a deadlock failure; the transaction may be retried.
	Deadlock
	// Failed: the command failed and so does the transaction, but the
	// client goes on (an error reply of the Redis protocol).
	Failed
	// Error: an error that aborts the client, as pgbench aborts on any
	// SQL error it does not retry.
	Error
	// Unstored: the reply's values could not be stored into variables
	// (\gset, \aset); the client aborts.
	Unstored
	// Unsupported: a reply scripts cannot handle (COPY); the client aborts.
	Unsupported
)

// Retryable reports whether a transaction that failed with s may be
// retried.
func (s Status) Retryable() bool { return s == Serialization || s == Deadlock }

// Reply is the outcome of one request.
type Reply struct {
	// Tag is the tag given to Encode for the request answered, or -1 for a
	// request the driver made itself (Sync, Prepare, Rollback).
	Tag    int
	Status Status
	// Err says what went wrong, for every status but OK. Its text is what
	// the client prints: the server's message (with DETAIL and HINT), or
	// pgbench's wording for Unstored ("query 0: expected one row, got 2")
	// and Unsupported.
	Err error
	// Class names a Failed reply's kind for per-command counts
	// ("WRONGTYPE", "ERR").
	Class string
	// Query is the query of a compound command (\;) an Error is about,
	// counted from 0.
	Query int
	// Note, when set, is printed on a line of its own before the client's
	// abort message, as pgbench first prints the reason of some aborts.
	Note string
	// Lost is set when the server ended the session with this reply (a
	// PostgreSQL FATAL or PANIC error): nothing more will come, and the
	// connection must be closed. Replies still pending are never answered.
	Lost bool

	// Cache counts what the reply says about a cache; only the RESP
	// driver fills it, other drivers leave it zero.
	Cache Cache
	// Node is the server a Redirected reply sends the request to.
	Node int
}

// Cache are a reply's cache counters: the keys a GET-like read found
// and did not, the fields of a hash read likewise, and the bytes of the
// request and of the reply on the wire.
type Cache struct {
	Hits, Misses           int32 // GET, GETEX, GETDEL: the reply; MGET: each element (nil: a miss)
	FieldHits, FieldMisses int32 // HGET: the reply; HMGET: each element (nil: a missing field)
	Sent, Received         int64 // bytes of the request and of the reply
	Moved, Asked           int32 // a Redirected reply: MOVED or ASK
}

// CommandError is an error of Encode reported as pgbench's commandFailed
// does: "client 0 aborted in command 2 (gset) of script 0; \gset is not
// allowed in pipeline mode". Err, when set, is printed on a line before.
type CommandError struct {
	What string // in parentheses: "gset", "resp"
	Msg  string
	Err  error
}

func (e *CommandError) Error() string {
	if e.Err != nil {
		return e.Err.Error() + ": " + e.Msg
	}
	return e.Msg
}

func (e *CommandError) Unwrap() error { return e.Err }

// Pipeliner is a driver whose commands inside \startpipeline ...
// \endpipeline are not answered one by one: Sync ends a group of them as
// one request with one reply (PostgreSQL's extended protocol). A driver
// without it answers every pipelined command with a reply of its own.
type Pipeliner interface {
	// StartPipeline enters pipeline mode for block, the commands up to
	// \endpipeline; an error says why they cannot be pipelined.
	StartPipeline(block []*script.Command) error
	// Sync appends the end of a group of pipelined commands.
	Sync(out []byte) []byte
	// EndPipeline leaves pipeline mode, once every reply is decoded.
	EndPipeline()
}

// Preparer is a driver that prepares statements before a pipeline runs
// them, as pgbench does in prepared mode.
type Preparer interface {
	// Prepare appends a request that prepares those of cmds that need it
	// and reports whether it appended anything. Its reply is reported as
	// printed-and-ignored by the engine when it fails, as in pgbench.
	Prepare(out []byte, cmds []*script.Command, vars *script.Vars) ([]byte, bool)
}

// Transactional is a driver whose server keeps a transaction block open
// across requests.
type Transactional interface {
	// InTransaction reports whether the last reply left a transaction
	// block open (or failed).
	InTransaction() bool
	// Rollback appends a request that ends the transaction block.
	Rollback(out []byte) []byte
}

// Describer is a driver that says what it sends, for --debug.
type Describer interface {
	// Describe appends a short text of cmd's request to dst.
	Describe(dst []byte, cmd *script.Command, vars *script.Vars) []byte
}

// Redirected is the status of a reply that says the request belongs to
// another server (a Redis Cluster's MOVED or ASK): no reply is recorded;
// the engine resends the request through the client's Router to the
// server Reply.Node names.
const Redirected Status = Unsupported + 1

// Cluster is a Connector whose commands go to one of several servers (a
// Redis Cluster): each client gets a Router, and opens its connections
// through it, one per server it needs.
type Cluster interface {
	Connector
	// NewRouter returns the router of one client.
	NewRouter() Router
	// Check refuses, before the run, commands of p that cannot run on
	// the cluster whatever the variables (keys written out that span
	// slots); the error names the script and line.
	Check(p *script.Program) error
}

// Router routes one client's commands between servers numbered from 0;
// server 0 is the one every client connects to first. A Router belongs to
// one client and is not safe for concurrent use, but Connect may be called
// from another goroutine while the client waits for it.
type Router interface {
	// Route returns the server cmd goes to with the client's variables;
	// the Encode that follows, on that server's driver, sends it. An error
	// (keys in different slots, a command whose keys are not known)
	// aborts the client; a *CommandError says how to report it.
	Route(cmd *script.Command, vars *script.Vars) (server int, err error)
	// Connect opens a connection to server, with its driver.
	Connect(ctx context.Context, dial Dial, server int) (net.Conn, Driver, error)
	// Resend appends to out the request the last Redirected reply named,
	// for d, the driver of the server Reply.Node names.
	Resend(d Driver, out []byte) []byte
	// MaxServers bounds the server numbers Route and Redirected replies
	// give.
	MaxServers() int
}

// Partial is the status of the reply to one part of a command a Splitter
// split: nothing is recorded, and the engine goes on waiting; the reply
// to the command's last part is the command's, its values merged.
const Partial Status = Redirected + 1

// Split is the server a Router's Route returns for a command it split
// into parts for several servers (see Splitter).
const Split = -1

// Splitter is a Router that can split a command whose keys are on
// several servers (a Redis Cluster's multi-key command under split=slot).
type Splitter interface {
	// Parts returns the servers of the parts of the command the last
	// Route split (it returned Split), in order; the engine encodes each
	// part with an Encode of cmd on that server's driver, in this order,
	// sends them all, then waits for every part's reply. The slice is
	// valid until the next Route.
	Parts() []int
}
