package script

import (
	"errors"
	"fmt"
	"math"
)

// arith evaluates + - * / % = <> <= < with pgbench's typing: double when
// either side is a double (except %), int64 with overflow errors otherwise.
func arith(fn funcID, l, r Value) (Value, error) {
	if (l.kind == KindDouble || r.kind == KindDouble) && fn != fnMod {
		ld, err := coerceDouble(l)
		if err != nil {
			return Value{}, err
		}
		rd, err := coerceDouble(r)
		if err != nil {
			return Value{}, err
		}
		return arithDouble(fn, ld, rd), nil
	}
	li, err := coerceInt(l)
	if err != nil {
		return Value{}, err
	}
	ri, err := coerceInt(r)
	if err != nil {
		return Value{}, err
	}
	return arithInt(fn, li, ri)
}

func arithDouble(fn funcID, l, r float64) Value {
	switch fn {
	case fnAdd:
		return Double(l + r)
	case fnSub:
		return Double(l - r)
	case fnMul:
		return Double(l * r)
	case fnDiv:
		return Double(l / r)
	case fnEq:
		return Bool(l == r)
	case fnNe:
		return Bool(l != r)
	case fnLe:
		return Bool(l <= r)
	}
	return Bool(l < r)
}

var (
	errAddRange = errors.New("bigint add out of range")
	errSubRange = errors.New("bigint sub out of range")
	errMulRange = errors.New("bigint mul out of range")
	errDivRange = errors.New("bigint div out of range")
	errDivZero  = errors.New("division by zero")
)

func arithInt(fn funcID, l, r int64) (Value, error) {
	switch fn {
	case fnAdd:
		s := l + r
		if (s > l) != (r > 0) {
			return Value{}, errAddRange
		}
		return Int(s), nil
	case fnSub:
		d := l - r
		if (d < l) != (r > 0) {
			return Value{}, errSubRange
		}
		return Int(d), nil
	case fnMul:
		return mulInt(l, r)
	case fnDiv, fnMod:
		return divInt(fn, l, r)
	case fnEq:
		return Bool(l == r), nil
	case fnNe:
		return Bool(l != r), nil
	case fnLe:
		return Bool(l <= r), nil
	}
	return Bool(l < r), nil
}

func mulInt(l, r int64) (Value, error) {
	if l == 0 || r == 0 {
		return Int(0), nil
	}
	p := l * r
	if p/r != l || (l == -1 && r == math.MinInt64) || (r == -1 && l == math.MinInt64) {
		return Value{}, errMulRange
	}
	return Int(p), nil
}

func divInt(fn funcID, l, r int64) (Value, error) {
	switch {
	case r == 0:
		return Value{}, errDivZero
	case r == -1 && fn == fnMod:
		return Int(0), nil
	case r == -1 && l == math.MinInt64:
		return Value{}, errDivRange
	case r == -1:
		return Int(-l), nil
	case fn == fnDiv:
		return Int(l / r), nil
	}
	return Int(l % r), nil
}

// bitwise evaluates & | # << >> on integers. Shifts use C semantics on
// x86-64: the count is taken modulo 64.
func bitwise(fn funcID, l, r Value) (Value, error) {
	li, err := coerceInt(l)
	if err != nil {
		return Value{}, err
	}
	ri, err := coerceInt(r)
	if err != nil {
		return Value{}, err
	}
	switch fn {
	case fnBitAnd:
		return Int(li & ri), nil
	case fnBitOr:
		return Int(li | ri), nil
	case fnBitXor:
		return Int(li ^ ri), nil
	case fnLShift:
		return Int(li << (uint64(ri) & 63)), nil
	}
	return Int(li >> (uint64(ri) & 63)), nil
}

// absValue is abs(): pgbench reads a boolean argument's storage as a
// double, so abs(true) is the double whose bits are 1 (4.94065645841247e-324).
func absValue(v Value) Value {
	if v.kind == KindBool {
		return Double(math.Float64frombits(uint64(v.i)))
	}
	if v.kind == KindInt {
		if v.i < 0 {
			return Int(-v.i)
		}
		return v
	}
	if v.f < 0 {
		return Double(-v.f)
	}
	return Double(v.f)
}

func mathFunc(fn funcID, v Value) (Value, error) {
	d, err := coerceDouble(v)
	if err != nil {
		return Value{}, err
	}
	switch fn {
	case fnSqrt:
		d = math.Sqrt(d)
	case fnLn:
		d = math.Log(d)
	case fnExp:
		d = math.Exp(d)
	}
	return Double(d), nil
}

func powValue(l, r Value) (Value, error) {
	ld, err := coerceDouble(l)
	if err != nil {
		return Value{}, err
	}
	rd, err := coerceDouble(r)
	if err != nil {
		return Value{}, err
	}
	return Double(math.Pow(ld, rd)), nil
}

// extremum is least() and greatest(): double if any argument is a double.
func extremum(fn funcID, a []Value) (Value, error) {
	for _, v := range a {
		if v.kind == KindDouble {
			return extremumDouble(fn, a)
		}
	}
	best, err := coerceInt(a[0])
	if err != nil {
		return Value{}, err
	}
	for _, v := range a[1:] {
		i, err := coerceInt(v)
		if err != nil {
			return Value{}, err
		}
		if fn == fnLeast && i < best || fn == fnGreatest && i > best {
			best = i
		}
	}
	return Int(best), nil
}

func extremumDouble(fn funcID, a []Value) (Value, error) {
	best, err := coerceDouble(a[0])
	if err != nil {
		return Value{}, err
	}
	for _, v := range a[1:] {
		d, err := coerceDouble(v)
		if err != nil {
			return Value{}, err
		}
		// C's Min/Max macros: (a < b ? a : b) and (a > b ? a : b)
		if fn == fnLeast && !(best < d) || fn == fnGreatest && !(best > d) {
			best = d
		}
	}
	return Double(best), nil
}

func hashValue(fn funcID, v, seed Value) (Value, error) {
	i, err := coerceInt(v)
	if err != nil {
		return Value{}, err
	}
	s, err := coerceInt(seed)
	if err != nil {
		return Value{}, err
	}
	if fn == fnHashFNV1a {
		return Int(hashFNV1a(i, uint64(s))), nil
	}
	return Int(hashMurmur2(i, uint64(s))), nil
}

func permuteValue(v, size, seed Value) (Value, error) {
	var x [3]int64
	for i, a := range [3]Value{v, size, seed} {
		n, err := coerceInt(a)
		if err != nil {
			return Value{}, err
		}
		x[i] = n
	}
	if x[1] <= 0 {
		return Value{}, errors.New("permute size parameter must be greater than zero")
	}
	return Int(permute(x[0], x[1], x[2])), nil
}

// random evaluates random, random_exponential, random_gaussian,
// random_zipfian (with pgbench's argument checks) and gbench's
// random_ycsb_zipfian and random_ycsb_scrambled.
func (env *Env) random(fn funcID, a []Value) (Value, error) {
	lo, err := coerceInt(a[0])
	if err != nil {
		return Value{}, err
	}
	hi, err := coerceInt(a[1])
	if err != nil {
		return Value{}, err
	}
	if err := checkRandomRange(lo, hi); err != nil {
		return Value{}, err
	}
	switch fn {
	case fnRandom:
		return Int(env.Rand.Int64Range(lo, hi)), nil
	case fnRandomYCSBZipfian:
		return Int(env.Rand.YCSBZipfian(lo, hi)), nil
	case fnRandomYCSBScrambled:
		return Int(env.Rand.YCSBScrambled(lo, hi)), nil
	}
	param, err := coerceDouble(a[2])
	if err != nil {
		return Value{}, err
	}
	switch fn {
	case fnRandomGaussian:
		if param < 2.0 {
			return Value{}, fmt.Errorf("gaussian parameter must be at least %f (not %f)", 2.0, param)
		}
		return Int(env.Rand.Gaussian(lo, hi, param)), nil
	case fnRandomZipfian:
		if param < 1.001 || param > 1000.0 {
			return Value{}, fmt.Errorf("zipfian parameter must be in range [%.3f, %.0f] (not %f)", 1.001, 1000.0, param)
		}
		return Int(env.Rand.Zipfian(lo, hi, param)), nil
	}
	if param <= 0.0 {
		return Value{}, fmt.Errorf("exponential parameter must be greater than zero (not %f)", param)
	}
	return Int(env.Rand.Exponential(lo, hi, param)), nil
}

func checkRandomRange(lo, hi int64) error {
	if lo > hi {
		return errors.New("empty range given to random")
	}
	d := hi - lo
	if d < 0 || d+1 < 0 {
		return errors.New("random range is too large")
	}
	return nil
}
