package script

import "strings"

// funcID identifies a function or operator. Operators are evaluated as
// functions, as pgbench does.
type funcID uint8

const (
	fnAdd funcID = iota
	fnSub
	fnMul
	fnDiv
	fnMod
	fnAbs
	fnLeast
	fnGreatest
	fnDebug
	fnPi
	fnSqrt
	fnLn
	fnExp
	fnInt
	fnDouble
	fnRandom
	fnRandomGaussian
	fnRandomExponential
	fnRandomZipfian
	fnPow
	fnAnd
	fnOr
	fnNot
	fnBitAnd
	fnBitOr
	fnBitXor
	fnLShift
	fnRShift
	fnEq
	fnNe
	fnLe
	fnLt
	fnIs
	fnCase
	fnHashMurmur2
	fnHashFNV1a
	fnPermute
	fnRange
	fnRandomKeys
	fnRandomYCSBZipfian
	fnRandomYCSBScrambled
	// gbench's string functions (strings.go).
	fnConcatOp
	fnConcat
	fnLength
	fnUUID
	fnRandomString
	fnRepeat
	fnLpad
	fnRpad
)

// isStringFunc reports whether fn is one of gbench's string functions.
func isStringFunc(fn funcID) bool { return fn >= fnConcatOp }

// Argument count rules.
const (
	nargsVariable = -1 // least, greatest: at least one
	nargsHash     = -2 // hash functions: value [, seed]
	nargsPermute  = -3 // permute: value, size [, seed]
	nargsPad      = -4 // lpad, rpad: string, length [, fill]
)

type funcInfo struct {
	name  string
	nargs int
	list  bool // returns a list (gbench extension)
}

// funcs describes the functions callable by name. Operators are not listed:
// they cannot be called by name.
var funcs = map[string]funcID{
	"mod": fnMod, "abs": fnAbs, "least": fnLeast, "greatest": fnGreatest, "debug": fnDebug,
	"pi": fnPi, "sqrt": fnSqrt, "ln": fnLn, "exp": fnExp, "int": fnInt, "double": fnDouble,
	"random": fnRandom, "random_gaussian": fnRandomGaussian,
	"random_exponential": fnRandomExponential, "random_zipfian": fnRandomZipfian,
	"pow": fnPow, "power": fnPow, "hash": fnHashMurmur2, "hash_murmur2": fnHashMurmur2,
	"hash_fnv1a": fnHashFNV1a, "permute": fnPermute,
	"range": fnRange, "random_keys": fnRandomKeys,
	"random_ycsb_zipfian": fnRandomYCSBZipfian, "random_ycsb_scrambled": fnRandomYCSBScrambled,
	"concat": fnConcat, "length": fnLength, "uuid": fnUUID, "random_string": fnRandomString,
	"repeat": fnRepeat, "lpad": fnLpad, "rpad": fnRpad,
}

var funcInfos = [...]funcInfo{
	fnAdd: {"+", 2, false}, fnSub: {"-", 2, false}, fnMul: {"*", 2, false},
	fnDiv: {"/", 2, false}, fnMod: {"mod", 2, false}, fnAbs: {"abs", 1, false},
	fnLeast: {"least", nargsVariable, false}, fnGreatest: {"greatest", nargsVariable, false},
	fnDebug: {"debug", 1, false}, fnPi: {"pi", 0, false}, fnSqrt: {"sqrt", 1, false},
	fnLn: {"ln", 1, false}, fnExp: {"exp", 1, false}, fnInt: {"int", 1, false},
	fnDouble: {"double", 1, false}, fnRandom: {"random", 2, false},
	fnRandomGaussian: {"random_gaussian", 3, false}, fnRandomExponential: {"random_exponential", 3, false},
	fnRandomZipfian: {"random_zipfian", 3, false}, fnPow: {"pow", 2, false},
	fnAnd: {"and", 2, false}, fnOr: {"or", 2, false}, fnNot: {"not", 1, false},
	fnBitAnd: {"&", 2, false}, fnBitOr: {"|", 2, false}, fnBitXor: {"#", 2, false},
	fnLShift: {"<<", 2, false}, fnRShift: {">>", 2, false}, fnEq: {"=", 2, false},
	fnNe: {"<>", 2, false}, fnLe: {"<=", 2, false}, fnLt: {"<", 2, false},
	fnIs: {"is", 2, false}, fnCase: {"case", 0, false},
	fnHashMurmur2: {"hash_murmur2", nargsHash, false}, fnHashFNV1a: {"hash_fnv1a", nargsHash, false},
	fnPermute: {"permute", nargsPermute, false},
	fnRange:   {"range", 2, true}, fnRandomKeys: {"random_keys", 3, true},
	fnRandomYCSBZipfian: {"random_ycsb_zipfian", 2, false}, fnRandomYCSBScrambled: {"random_ycsb_scrambled", 2, false},
	fnConcatOp: {"||", 2, false}, fnConcat: {"concat", nargsVariable, false}, fnLength: {"length", 1, false},
	fnUUID: {"uuid", 1, false}, fnRandomString: {"random_string", 1, false}, fnRepeat: {"repeat", 2, false},
	fnLpad: {"lpad", nargsPad, false}, fnRpad: {"rpad", nargsPad, false},
}

// lookupFunc finds a function by name, ignoring case as pgbench does.
func lookupFunc(name string) (funcID, bool) {
	id, ok := funcs[strings.ToLower(name)]
	return id, ok
}

// maxFuncArgs is pgbench's MAX_FARGS: calls with more arguments fail when
// evaluated.
const maxFuncArgs = 16
