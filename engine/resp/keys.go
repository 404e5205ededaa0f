package resp

import (
	"errors"
	"fmt"
	"strconv"
)

// keySpec says where a command's keys are, as COMMAND INFO's first key,
// last key and step do: last -1 is the last argument, -2 the one before;
// numkeys > 0 says the argument at that index counts the keys that follow
// it (EVAL script numkeys key...).
type keySpec struct {
	first, last, step int
	numkeys           int
}

// keyless commands address no key: in a cluster any node takes them.
var keyless = keySpec{}

// keySpecs are the commands Keys knows, upper case. Any other command is
// refused: a guess that sends a command to the wrong node would make a
// cluster benchmark measure redirections.
var keySpecs = map[string]keySpec{
	// one key at argument 1
	"GET": {1, 1, 1, 0}, "SET": {1, 1, 1, 0}, "SETEX": {1, 1, 1, 0}, "PSETEX": {1, 1, 1, 0},
	"SETNX": {1, 1, 1, 0}, "GETSET": {1, 1, 1, 0}, "GETDEL": {1, 1, 1, 0}, "GETEX": {1, 1, 1, 0},
	"APPEND": {1, 1, 1, 0}, "STRLEN": {1, 1, 1, 0}, "GETRANGE": {1, 1, 1, 0}, "SETRANGE": {1, 1, 1, 0},
	"INCR": {1, 1, 1, 0}, "DECR": {1, 1, 1, 0}, "INCRBY": {1, 1, 1, 0}, "DECRBY": {1, 1, 1, 0},
	"INCRBYFLOAT": {1, 1, 1, 0}, "SETBIT": {1, 1, 1, 0}, "GETBIT": {1, 1, 1, 0}, "BITCOUNT": {1, 1, 1, 0},
	"EXPIRE": {1, 1, 1, 0}, "PEXPIRE": {1, 1, 1, 0}, "EXPIREAT": {1, 1, 1, 0}, "PEXPIREAT": {1, 1, 1, 0},
	"TTL": {1, 1, 1, 0}, "PTTL": {1, 1, 1, 0}, "PERSIST": {1, 1, 1, 0}, "TYPE": {1, 1, 1, 0},
	"HGET": {1, 1, 1, 0}, "HSET": {1, 1, 1, 0}, "HSETNX": {1, 1, 1, 0}, "HMSET": {1, 1, 1, 0},
	"HMGET": {1, 1, 1, 0}, "HGETALL": {1, 1, 1, 0}, "HDEL": {1, 1, 1, 0}, "HLEN": {1, 1, 1, 0},
	"HEXISTS": {1, 1, 1, 0}, "HKEYS": {1, 1, 1, 0}, "HVALS": {1, 1, 1, 0}, "HINCRBY": {1, 1, 1, 0},
	"HINCRBYFLOAT": {1, 1, 1, 0}, "HSTRLEN": {1, 1, 1, 0},
	"LPUSH": {1, 1, 1, 0}, "RPUSH": {1, 1, 1, 0}, "LPOP": {1, 1, 1, 0}, "RPOP": {1, 1, 1, 0},
	"LLEN": {1, 1, 1, 0}, "LRANGE": {1, 1, 1, 0}, "LINDEX": {1, 1, 1, 0}, "LSET": {1, 1, 1, 0},
	"LTRIM": {1, 1, 1, 0}, "LREM": {1, 1, 1, 0},
	"SADD": {1, 1, 1, 0}, "SREM": {1, 1, 1, 0}, "SMEMBERS": {1, 1, 1, 0}, "SISMEMBER": {1, 1, 1, 0},
	"SCARD": {1, 1, 1, 0}, "SPOP": {1, 1, 1, 0}, "SRANDMEMBER": {1, 1, 1, 0},
	"ZADD": {1, 1, 1, 0}, "ZREM": {1, 1, 1, 0}, "ZSCORE": {1, 1, 1, 0}, "ZINCRBY": {1, 1, 1, 0},
	"ZCARD": {1, 1, 1, 0}, "ZCOUNT": {1, 1, 1, 0}, "ZRANK": {1, 1, 1, 0}, "ZREVRANK": {1, 1, 1, 0},
	"ZRANGE": {1, 1, 1, 0}, "ZREVRANGE": {1, 1, 1, 0}, "ZRANGEBYSCORE": {1, 1, 1, 0},
	"ZREVRANGEBYSCORE": {1, 1, 1, 0}, "ZPOPMIN": {1, 1, 1, 0}, "ZPOPMAX": {1, 1, 1, 0},
	"XADD": {1, 1, 1, 0}, "XLEN": {1, 1, 1, 0}, "XRANGE": {1, 1, 1, 0}, "XREVRANGE": {1, 1, 1, 0},
	"XTRIM": {1, 1, 1, 0}, "PFADD": {1, 1, 1, 0},
	// every argument from 1 a key
	"MGET": {1, -1, 1, 0}, "DEL": {1, -1, 1, 0}, "UNLINK": {1, -1, 1, 0}, "EXISTS": {1, -1, 1, 0},
	"TOUCH": {1, -1, 1, 0}, "PFCOUNT": {1, -1, 1, 0}, "SINTER": {1, -1, 1, 0},
	"SUNION": {1, -1, 1, 0}, "SDIFF": {1, -1, 1, 0}, "WATCH": {1, -1, 1, 0},
	// key value pairs
	"MSET": {1, -1, 2, 0}, "MSETNX": {1, -1, 2, 0},
	// other shapes
	"RENAME": {1, 2, 1, 0}, "RENAMENX": {1, 2, 1, 0}, "LMOVE": {1, 2, 1, 0}, "RPOPLPUSH": {1, 2, 1, 0},
	"SMOVE": {1, 2, 1, 0}, "BLPOP": {1, -2, 1, 0}, "BRPOP": {1, -2, 1, 0},
	"EVAL": {numkeys: 2}, "EVALSHA": {numkeys: 2}, "EVAL_RO": {numkeys: 2}, "EVALSHA_RO": {numkeys: 2},
	"FCALL": {numkeys: 2}, "FCALL_RO": {numkeys: 2},
	// no key
	"PING": keyless, "ECHO": keyless, "TIME": keyless, "INFO": keyless, "HELLO": keyless,
	"AUTH": keyless, "SELECT": keyless, "COMMAND": keyless, "CONFIG": keyless, "CLIENT": keyless,
	"DBSIZE": keyless, "CLUSTER": keyless, "READONLY": keyless, "READWRITE": keyless,
	"ASKING": keyless, "MULTI": keyless, "EXEC": keyless, "DISCARD": keyless, "UNWATCH": keyless,
	"SCRIPT": keyless, "ROLE": keyless, "LASTSAVE": keyless, "RANDOMKEY": keyless,
}

// ErrUnknownKeys is wrapped by Keys' error for a command it has no key
// positions for.
var ErrUnknownKeys = errors.New("key positions not known")

// maxCommandName bounds the command names Keys looks up.
const maxCommandName = 24

// Keys appends to dst the indexes in args (args[0] is the command name)
// of the command's keys, in order, and returns the extended slice, as
// COMMAND GETKEYS would answer for the commands of a static table: the
// string, hash, list, set, sorted set and stream commands gbench's
// workloads use, EVAL and FCALL (by their numkeys), and keyless ones such
// as PING (no index). A command outside the table is an error wrapping
// ErrUnknownKeys: Keys does not guess. Too few arguments for the shape
// is an error too. Keys allocates only when dst must grow, and on error;
// it is safe for concurrent use.
func Keys(dst []int, args [][]byte) ([]int, error) {
	if len(args) == 0 {
		return dst, errors.New("empty command")
	}
	spec, ok := lookupSpec(args[0])
	if !ok {
		return dst, fmt.Errorf("%w for command %q (cluster routing knows a fixed set of commands)",
			ErrUnknownKeys, args[0])
	}
	if spec.numkeys > 0 {
		return numKeys(dst, args, spec.numkeys)
	}
	if spec.first == 0 {
		return dst, nil
	}
	last := spec.last
	if last < 0 {
		last += len(args)
	}
	// "MSET k v k": the arguments after the first key come in steps.
	uneven := spec.last == -1 && (len(args)-spec.first)%spec.step != 0
	if last < spec.first || last >= len(args) || uneven {
		return dst, fmt.Errorf("wrong number of arguments for %q", args[0])
	}
	for i := spec.first; i <= last; i += spec.step {
		dst = append(dst, i)
	}
	return dst, nil
}

// lookupSpec finds the spec of a command name in any case.
func lookupSpec(name []byte) (keySpec, bool) {
	if len(name) > maxCommandName {
		return keySpec{}, false
	}
	var up [maxCommandName]byte
	for i, c := range name {
		if c >= 'a' && c <= 'z' {
			c -= 'a' - 'A'
		}
		up[i] = c
	}
	s, ok := keySpecs[string(up[:len(name)])] // this conversion does not allocate
	return s, ok
}

// numKeys handles "name arg numkeys key... arg...".
func numKeys(dst []int, args [][]byte, at int) ([]int, error) {
	if at >= len(args) {
		return dst, fmt.Errorf("wrong number of arguments for %q", args[0])
	}
	n, err := strconv.Atoi(string(args[at]))
	if err != nil || n < 0 || n > len(args)-at-1 {
		return dst, fmt.Errorf("invalid numkeys %q for %q", args[at], args[0])
	}
	for i := at + 1; i <= at+n; i++ {
		dst = append(dst, i)
	}
	return dst, nil
}

// CrossSlotError is SameSlot's refusal of keys that span slots.
type CrossSlotError struct {
	Command string
	Keys    []string // one key of each slot, in the order of the command
	Slots   []uint16 // their slots
}

func (e *CrossSlotError) Error() string {
	b := fmt.Appendf(nil, "%s: keys in different hash slots:", e.Command)
	for i, k := range e.Keys {
		if i > 0 {
			b = append(b, ',')
		}
		b = fmt.Appendf(b, " %q (slot %d)", k, e.Slots[i])
	}
	b = append(b, "; a cluster runs a multi-key command only when its keys share a slot: give them a {hash tag}"...)
	if splittable([]byte(e.Command)) {
		b = append(b, ", or add split=slot to the URL to send one part per slot"...)
	}
	return string(b)
}

// maxCrossSlotKeys bounds the keys a CrossSlotError names.
const maxCrossSlotKeys = 8

// SameSlot returns the slot of the keys of args at the indexes keys
// (from Keys), or a *CrossSlotError naming a key of each slot (at most
// eight) when they span slots. With no key it returns -1. It allocates
// only on error.
func SameSlot(args [][]byte, keys []int) (int, error) {
	if len(keys) == 0 {
		return -1, nil
	}
	slot := Slot(args[keys[0]])
	for _, i := range keys[1:] {
		if Slot(args[i]) != slot {
			return -1, crossSlot(args, keys)
		}
	}
	return int(slot), nil
}

func crossSlot(args [][]byte, keys []int) error {
	e := &CrossSlotError{Command: string(args[0])}
	seen := map[uint16]bool{}
	for _, i := range keys {
		s := Slot(args[i])
		if seen[s] || len(e.Keys) == maxCrossSlotKeys {
			continue
		}
		seen[s] = true
		e.Keys, e.Slots = append(e.Keys, string(args[i])), append(e.Slots, s)
	}
	return e
}
