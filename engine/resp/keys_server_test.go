package resp

import (
	"reflect"
	"strings"
	"testing"
)

// TestKeysAgreeWithServer checks the static table against the server's
// own: COMMAND INFO's first key, last key and step for every command in
// it (0, 0, 0 for keyless commands and for those with numkeys, which
// Redis marks movablekeys), and COMMAND GETKEYS for sample commands.
func TestKeysAgreeWithServer(t *testing.T) {
	c := sharedClient(t)
	for name, spec := range keySpecs {
		if _, err := c.try("COMMAND", "INFO", name); err != nil {
			t.Fatal(err)
		}
		r := &c.rr.r
		vals := r.Values()
		info := r.First(r.Top())
		if info < 0 || vals[info].Kind != KindArray {
			t.Errorf("COMMAND INFO %s: the server does not know it", name)
			continue
		}
		var ints []int64
		for i := r.First(info); i >= 0; i = r.Next(i) {
			if vals[i].Kind == KindInt {
				ints = append(ints, vals[i].Int)
			}
		}
		if len(ints) < 4 {
			t.Fatalf("COMMAND INFO %s: %s", name, render(vals))
		}
		got := [3]int64{ints[1], ints[2], ints[3]} // after the arity
		want := [3]int64{int64(spec.first), int64(spec.last), int64(spec.step)}
		if got != want {
			t.Errorf("%s: the server says first, last, step = %v, the table %v", name, got, want)
		}
	}
	for _, cmd := range []string{
		"MSET a 1 b 2 c 3", "MGET a b c", "BLPOP a b c 0", "EVAL return 2 a b x y", "FCALL f 1 k x",
		"SET k v EX 10", "HMGET h f g", "RENAME a b", "DEL a b", "EVALSHA_RO 0123456789012345678901234567890123456789 1 k",
	} {
		args := strings.Fields(cmd)
		if _, err := c.try(append([]string{"COMMAND", "GETKEYS"}, args...)...); err != nil {
			t.Fatalf("COMMAND GETKEYS %s: %v", cmd, err)
		}
		r := &c.rr.r
		var server []string
		for i := r.First(r.Top()); i >= 0; i = r.Next(i) {
			server = append(server, string(r.Values()[i].Bytes))
		}
		idx, err := Keys(nil, words(cmd))
		if err != nil {
			t.Fatal(err)
		}
		var ours []string
		for _, i := range idx {
			ours = append(ours, args[i])
		}
		if !reflect.DeepEqual(ours, server) {
			t.Errorf("%s: Keys finds %q, COMMAND GETKEYS %q", cmd, ours, server)
		}
	}
}
