package script

import (
	"bytes"
	"errors"
	"fmt"
	"math"
)

// ExecSet runs \set: evaluates the expression and assigns the variable.
// List functions build the list in the variable's own buffer.
func (env *Env) ExecSet(s *SetCommand) error {
	if !validVarName(s.Var) {
		return fmt.Errorf("set: invalid variable name: \"%s\"", s.Var)
	}
	env.resetStrings()
	if s.List != nil {
		return env.execList(s)
	}
	v, err := env.evalAssign(s.Expr, s.Slot)
	if err != nil || v.kind == KindNone {
		return err
	}
	if v.kind == KindString {
		env.Vars.SetString(s.Slot, env.strBytes(v))
		return nil
	}
	env.Vars.Set(s.Slot, v)
	return nil
}

// evalAssign evaluates a \set expression; a bare reference to a list
// variable copies the list (and returns KindNone).
func (env *Env) evalAssign(n Node, target int) (Value, error) {
	if vn, ok := n.(*VarNode); ok && env.Vars.IsList(vn.Slot) {
		if vn.Slot != target {
			env.Vars.SetList(target, env.Vars.List(vn.Slot))
		}
		return Value{}, nil
	}
	return env.Eval(n)
}

// maxListLen bounds lists built by range() and random_keys().
const maxListLen = 1 << 20

// execList evaluates range(first, count) or random_keys(lb, ub, count).
func (env *Env) execList(s *SetCommand) error {
	var a [3]int64
	for i, n := range s.List.Args {
		v, err := env.Eval(n)
		if err != nil {
			return err
		}
		if a[i], err = coerceInt(v); err != nil {
			return fmt.Errorf("%s(): %w", funcInfos[s.List.Fn].name, err)
		}
	}
	if s.List.Fn == fnRange {
		return env.execRange(s.Slot, a[0], a[1])
	}
	return env.execRandomKeys(s.Slot, a[0], a[1], a[2])
}

func (env *Env) execRange(slot int, first, count int64) error {
	if count < 0 || count > maxListLen {
		return fmt.Errorf("range(): count must be between 0 and %d (not %d)", maxListLen, count)
	}
	if count > 0 && first > first+count-1 {
		return errors.New("range(): bigint out of range")
	}
	xs := env.Vars.listBuffer(slot)
	for i := int64(0); i < count; i++ {
		xs = append(xs, first+i)
	}
	env.Vars.SetList(slot, xs)
	return nil
}

// execRandomKeys draws count distinct integers uniformly from [lb, ub], in
// random order. When the draw is sparse (count at most half the range) it
// draws uniformly and rejects repeats; otherwise it uses Floyd's algorithm
// and shuffles. A small hash set in the client's scratch space tells
// repeats in constant time, so a draw costs O(count) and allocates nothing
// once the scratch space is large enough.
func (env *Env) execRandomKeys(slot int, lb, ub, count int64) error {
	if err := checkRandomRange(lb, ub); err != nil {
		return fmt.Errorf("random_keys(): %w", err)
	}
	n := ub - lb + 1
	if count < 0 || count > maxListLen || count > n {
		return fmt.Errorf("random_keys(): cannot draw %d distinct keys from [%d, %d]", count, lb, ub)
	}
	set := env.keySet(int(count))
	xs := env.Vars.listBuffer(slot)
	if count*2 <= n {
		for int64(len(xs)) < count {
			t := env.Rand.Int64Range(0, n-1)
			if set.add(t) {
				xs = append(xs, lb+t)
			}
		}
	} else {
		for j := n - count; j < n; j++ {
			t := env.Rand.Int64Range(0, j)
			if !set.add(t) {
				t = j
				set.add(t)
			}
			xs = append(xs, lb+t)
		}
		for i := len(xs) - 1; i > 0; i-- {
			k := env.Rand.Int64Range(0, int64(i))
			xs[i], xs[k] = xs[k], xs[i]
		}
	}
	env.Vars.SetList(slot, xs)
	return nil
}

// keySet returns an empty set sized for count keys, reusing scratch space.
func (env *Env) keySet(count int) int64Set {
	size := 8
	for size < 2*count {
		size *= 2
	}
	if cap(env.scratch) < size {
		env.scratch = make([]int64, size)
	}
	s := env.scratch[:size]
	clear(s)
	return int64Set{slots: s, mask: uint64(size - 1)}
}

// int64Set is an open-addressing set of non-negative integers, stored plus
// one so that 0 marks an empty slot.
type int64Set struct {
	slots []int64
	mask  uint64
}

// add inserts v and reports whether it was new.
func (s int64Set) add(v int64) bool {
	i := (uint64(v) * 0x9E3779B97F4A7C15) >> 32 & s.mask
	for {
		switch s.slots[i] {
		case 0:
			s.slots[i] = v + 1
			return true
		case v + 1:
			return false
		}
		i = (i + 1) & s.mask
	}
}

// Cond evaluates an \if or \elif condition with pgbench's truth rules.
func (env *Env) Cond(n Node) (bool, error) {
	env.resetStrings()
	v, err := env.Eval(n)
	if err == nil && v.kind == KindString {
		return false, errors.New("cannot coerce string to boolean")
	}
	return v.Truth(), err
}

// SleepUsec returns the duration of a \sleep in microseconds. A variable
// argument is read like C's atoi, and must start with a digit unless it is
// non-zero, as in pgbench.
func (env *Env) SleepUsec(s *Sleep) (int64, error) {
	if s.Slot < 0 {
		return s.Usec, nil
	}
	var buf [64]byte
	b, ok := env.Vars.AppendText(buf[:0], s.Slot)
	if !ok {
		return 0, fmt.Errorf("sleep: undefined variable \"%s\"", s.Var)
	}
	usec := atoi(string(b))
	if usec == 0 && (len(b) == 0 || !isDigit(b[0])) {
		return 0, fmt.Errorf("sleep: invalid sleep time \"%s\" for variable \"%s\"", b, s.Var)
	}
	return int64(usec * int32(s.Unit)), nil
}

// maxShellCommand is pgbench's SHELL_COMMAND_SIZE - 1.
const maxShellCommand = 255

// ShellCommand appends the command line of \shell or \setshell to dst.
func (env *Env) ShellCommand(sh *Shell, dst []byte) ([]byte, error) {
	start := len(dst)
	for i, w := range sh.Words {
		if i > 0 {
			dst = append(dst, ' ')
		}
		if w.Slot < 0 {
			dst = append(dst, w.Text...)
		} else {
			var ok bool
			if dst, ok = env.Vars.AppendText(dst, w.Slot); !ok {
				return dst, fmt.Errorf("%s: undefined variable \"%s\"", sh.Program(), w.Text)
			}
		}
		if len(dst)-start >= maxShellCommand {
			return dst, fmt.Errorf("%s: shell command is too long", sh.Program())
		}
	}
	return dst, nil
}

// SetShellResult stores the output of a \setshell command: the first line
// (at most 63 bytes, like pgbench's fgets) must be an integer, optionally
// surrounded by blanks; it is read like C's strtol and stored as an int.
func (env *Env) SetShellResult(sh *Shell, out []byte) error {
	if i := bytes.IndexByte(out, '\n'); i >= 0 {
		out = out[:i+1]
	}
	if len(out) > 63 {
		out = out[:63]
	}
	if len(out) == 0 {
		return fmt.Errorf("%s: could not read result of shell command", sh.Program())
	}
	n, end := strtol(out)
	for end < len(out) && isCSpace(out[end]) {
		end++
	}
	if end != len(out) {
		return fmt.Errorf("%s: shell command must return an integer (not \"%s\")", sh.Program(), out)
	}
	if !validVarName(sh.Var) {
		return fmt.Errorf("setshell: invalid variable name: \"%s\"", sh.Var)
	}
	env.Vars.SetInt(sh.Slot, int64(int32(n)))
	return nil
}

// strtol is C's strtol in base 10: it returns the value (saturated) and the
// offset where parsing stopped, which is 0 when there are no digits.
func strtol(b []byte) (int64, int) {
	i := 0
	for i < len(b) && isCSpace(b[i]) {
		i++
	}
	neg := false
	if i < len(b) && (b[i] == '+' || b[i] == '-') {
		neg = b[i] == '-'
		i++
	}
	start := i
	var n int64
	for ; i < len(b) && isDigit(b[i]); i++ {
		d := int64(b[i] - '0')
		switch {
		case n > (math.MaxInt64-d)/10:
			n = math.MaxInt64
		default:
			n = n*10 + d
		}
	}
	if i == start {
		return 0, 0
	}
	if neg {
		n = -n
	}
	return n, i
}

// validVarName is pgbench's rule: a letter, "_" or non-ASCII byte, then
// also digits.
func validVarName(name string) bool {
	if name == "" || !isAlpha(name[0]) {
		return false
	}
	for i := 1; i < len(name); i++ {
		if !isAlnum(name[i]) {
			return false
		}
	}
	return true
}

// ValidVarName reports whether name is a valid pgbench variable name.
func ValidVarName(name []byte) bool {
	if len(name) == 0 || !isAlpha(name[0]) {
		return false
	}
	for _, c := range name[1:] {
		if !isAlnum(c) {
			return false
		}
	}
	return true
}
