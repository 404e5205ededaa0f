package script

import (
	"errors"
	"fmt"
	"io"
	"math"
)

// Env is what evaluating an expression needs from a client. It is owned by
// one client.
type Env struct {
	Vars *Vars
	Rand PRNG // the client's sequence for random functions (pgbench's cs_func_rs)
	// Debug receives the output of debug(); nil discards it.
	Debug io.Writer
	// Script and Command number the command being run, for debug() output.
	Script, Command int

	scratch []int64 // random_keys membership set
	str     []byte  // the bytes of string values (strings.go)
}

// Eval evaluates an expression to a Value. Lists are an error here: they are
// only produced by \set (see Command.Exec).
func (env *Env) Eval(n Node) (Value, error) {
	switch n := n.(type) {
	case *ConstNode:
		if n.V.kind == KindString {
			off := len(env.str)
			env.str = append(env.str, n.S...)
			return env.stringValue(off)
		}
		return n.V, nil
	case *VarNode:
		v, err := env.Vars.Value(n.Slot)
		if v.kind == KindString {
			return env.varString(n.Slot)
		}
		return v, err
	case *CallNode:
		if n.Fn == fnAnd || n.Fn == fnOr || n.Fn == fnCase {
			return env.evalLazy(n.Fn, n.Args)
		}
		return env.evalCall(n)
	}
	return Value{}, errors.New("internal error: unknown expression node")
}

// evalLazy evaluates AND, OR and CASE, which evaluate arguments on demand.
func (env *Env) evalLazy(fn funcID, args []Node) (Value, error) {
	for {
		a1, err := env.Eval(args[0])
		if err != nil {
			return Value{}, err
		}
		if fn == fnCase {
			if a1.Truth() {
				return env.Eval(args[1])
			}
			args = args[2:]
			if len(args) == 1 {
				return env.Eval(args[0])
			}
			continue
		}
		return env.evalAndOr(fn, a1, args[1])
	}
}

func (env *Env) evalAndOr(fn funcID, a1 Value, right Node) (Value, error) {
	if a1.kind == KindNull {
		return Null(), nil
	}
	b1, err := coerceBool(a1)
	if err != nil {
		return Value{}, err
	}
	if fn == fnAnd && !b1 {
		return Bool(false), nil
	}
	if fn == fnOr && b1 {
		return Bool(true), nil
	}
	a2, err := env.Eval(right)
	if err != nil || a2.kind == KindNull {
		return a2, err
	}
	b2, err := coerceBool(a2)
	if err != nil {
		return Value{}, err
	}
	return Bool(b2), nil
}

// evalCall evaluates all arguments, then the function; any NULL argument
// makes the result NULL except for IS and debug().
func (env *Env) evalCall(n *CallNode) (Value, error) {
	var args [maxFuncArgs]Value
	if len(n.Args) > maxFuncArgs {
		for _, a := range n.Args[:maxFuncArgs] {
			if _, err := env.Eval(a); err != nil {
				return Value{}, err
			}
		}
		return Value{}, fmt.Errorf("too many function arguments, maximum is %d", maxFuncArgs)
	}
	hasNull := false
	for i, a := range n.Args {
		v, err := env.Eval(a)
		if err != nil && n.Fn == fnIs && i == 0 && env.isOpaqueText(a) {
			// gbench: a \resp reply holding text that is not a number or
			// a boolean IS NOT NULL and is not a boolean.
			return Bool(false), nil
		}
		if err != nil {
			return Value{}, err
		}
		args[i] = v
		hasNull = hasNull || v.kind == KindNull
	}
	if hasNull && n.Fn != fnIs && n.Fn != fnDebug && n.Fn != fnConcat {
		return Null(), nil
	}
	return env.apply(n.Fn, args[:len(n.Args)])
}

func (env *Env) apply(fn funcID, a []Value) (Value, error) {
	if isStringFunc(fn) {
		return env.stringFunc(fn, a)
	}
	switch fn {
	case fnEq, fnNe, fnLe, fnLt:
		if a[0].kind == KindString || a[1].kind == KindString {
			return env.compareStrings(fn, a[0], a[1])
		}
		return arith(fn, a[0], a[1])
	case fnAdd, fnSub, fnMul, fnDiv, fnMod:
		return arith(fn, a[0], a[1])
	case fnBitAnd, fnBitOr, fnBitXor, fnLShift, fnRShift:
		return bitwise(fn, a[0], a[1])
	case fnNot:
		b, err := coerceBool(a[0])
		return Bool(!b), err
	case fnPi:
		return Double(math.Pi), nil
	case fnAbs:
		if a[0].kind == KindString {
			return Value{}, fmt.Errorf("cannot coerce %s to double", a[0].kind)
		}
		return absValue(a[0]), nil
	case fnDebug:
		env.debug(a[0])
		return a[0], nil
	case fnDouble, fnSqrt, fnLn, fnExp:
		return mathFunc(fn, a[0])
	case fnInt:
		i, err := coerceInt(a[0])
		return Int(i), err
	case fnLeast, fnGreatest:
		return extremum(fn, a)
	case fnRandom, fnRandomExponential, fnRandomGaussian, fnRandomZipfian, fnRandomYCSBZipfian, fnRandomYCSBScrambled:
		return env.random(fn, a)
	case fnPow:
		return powValue(a[0], a[1])
	case fnIs:
		return Bool(a[0].kind == a[1].kind && a[0].i == a[1].i), nil
	case fnHashMurmur2, fnHashFNV1a:
		return hashValue(fn, a[0], a[1])
	case fnPermute:
		return permuteValue(a[0], a[1], a[2])
	case fnRange, fnRandomKeys:
		return Value{}, fmt.Errorf("%s() returns a list, which is only allowed as the whole expression of \\set", funcInfos[fn].name)
	}
	return Value{}, fmt.Errorf("internal error: unknown function %d", fn)
}

// isOpaqueText reports whether n is a variable holding \resp reply text
// that does not read as a value (pgbench's "malformed variable").
func (env *Env) isOpaqueText(n Node) bool {
	vn, ok := n.(*VarNode)
	if !ok || !env.Vars.isReplyText(vn.Slot) {
		return false
	}
	text, _ := env.Vars.Text(vn.Slot)
	if len(text) == 0 {
		return false
	}
	_, err := parseVarText(vn.Name, text)
	return err != nil
}

func (env *Env) debug(v Value) {
	if env.Debug == nil {
		return
	}
	var buf [96]byte
	b := fmt.Appendf(buf[:0], "debug(script=%d,command=%d): ", env.Script, env.Command+1)
	switch v.kind {
	case KindNull:
		b = append(b, "null"...)
	case KindBool:
		b = append(append(b, "boolean "...), v.String()...)
	case KindInt:
		b = append(append(b, "int "...), v.String()...)
	case KindDouble:
		b = append(append(b, "double "...), v.String()...)
	case KindString:
		b = append(append(b, "string "...), env.strBytes(v)...)
	}
	_, _ = env.Debug.Write(append(b, '\n'))
}

func coerceBool(v Value) (bool, error) {
	if v.kind == KindBool {
		return v.i != 0, nil
	}
	return false, fmt.Errorf("cannot coerce %s to boolean", v.kind)
}

func coerceInt(v Value) (int64, error) {
	switch v.kind {
	case KindInt:
		return v.i, nil
	case KindDouble:
		d := math.RoundToEven(v.f)
		if math.IsNaN(d) || d < -0x1p63 || d >= 0x1p63 {
			return 0, fmt.Errorf("double to int overflow for %f", d)
		}
		return int64(d), nil
	}
	return 0, fmt.Errorf("cannot coerce %s to int", v.kind)
}

func coerceDouble(v Value) (float64, error) {
	switch v.kind {
	case KindDouble:
		return v.f, nil
	case KindInt:
		return float64(v.i), nil
	}
	return 0, fmt.Errorf("cannot coerce %s to double", v.kind)
}
