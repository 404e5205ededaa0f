package resp

import (
	"errors"
	"reflect"
	"strings"
	"testing"
)

func words(s string) [][]byte {
	var a [][]byte
	for _, w := range strings.Fields(s) {
		a = append(a, []byte(w))
	}
	return a
}

func TestKeys(t *testing.T) {
	for _, tc := range []struct {
		cmd  string
		keys []int
		err  string
	}{
		{"GET k", []int{1}, ""},
		{"get k", []int{1}, ""}, // any case
		{"SET k v EX 10", []int{1}, ""},
		{"MGET a b c", []int{1, 2, 3}, ""},
		{"MSET a 1 b 2", []int{1, 3}, ""},
		{"HMGET h f1 f2", []int{1}, ""}, // fields are not keys
		{"BLPOP a b 0", []int{1, 2}, ""},
		{"RENAME a b", []int{1, 2}, ""},
		{"EVAL s 2 a b x", []int{3, 4}, ""},
		{"EVALSHA s 0 x", nil, ""},
		{"PING", nil, ""},
		{"INFO stats", nil, ""},
		{"GET", nil, `wrong number of arguments for "GET"`},
		{"MSET a 1 b", nil, `wrong number of arguments for "MSET"`},
		{"MGET", nil, `wrong number of arguments for "MGET"`},
		{"EVAL s 3 a b", nil, `invalid numkeys "3" for "EVAL"`},
		{"EVAL s", nil, `wrong number of arguments for "EVAL"`},
		{"XREAD STREAMS s 0", nil, `key positions not known for command "XREAD"`},
		{"SORT k BY x", nil, `key positions not known for command "SORT"`},
	} {
		got, err := Keys(nil, words(tc.cmd))
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("Keys(%s): error %v, want %q", tc.cmd, err, tc.err)
			}
			continue
		}
		if err != nil || !reflect.DeepEqual(got, tc.keys) {
			t.Errorf("Keys(%s) = %v, %v; want %v", tc.cmd, got, err, tc.keys)
		}
	}
	if _, err := Keys(nil, words("XREAD STREAMS s 0")); !errors.Is(err, ErrUnknownKeys) {
		t.Errorf("unknown command: %v does not wrap ErrUnknownKeys", err)
	}
	args, dst := words("MGET {t}a {t}b {t}c"), make([]int, 0, 8)
	if n := testing.AllocsPerRun(100, func() {
		keys, _ := Keys(dst[:0], args)
		SameSlot(args, keys)
	}); n != 0 {
		t.Errorf("Keys and SameSlot allocate %v times", n)
	}
}

func TestSameSlot(t *testing.T) {
	args := words("MGET {t}a {t}b")
	keys, _ := Keys(nil, args)
	if s, err := SameSlot(args, keys); err != nil || s != int(Slot([]byte("t"))) {
		t.Errorf("hash-tagged keys: slot %d, %v", s, err)
	}
	if s, err := SameSlot(words("PING"), nil); s != -1 || err != nil {
		t.Errorf("no key: %d, %v", s, err)
	}
	args = words("MGET foo bar foo{bar} baz")
	keys, _ = Keys(nil, args)
	_, err := SameSlot(args, keys)
	want := `MGET: keys in different hash slots: "foo" (slot 12182), "bar" (slot 5061), ` +
		`"baz" (slot 4813); a cluster runs a multi-key command only when its keys share a slot: give them a {hash tag}, or add split=slot to the URL to send one part per slot`
	var ce *CrossSlotError
	if err == nil || err.Error() != want || !errors.As(err, &ce) {
		t.Errorf("cross-slot error\n got %v\nwant %s", err, want)
	}
}
