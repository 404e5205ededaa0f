package resp

import "testing"

func TestCRC16(t *testing.T) {
	// The test vector of the Redis Cluster specification.
	if got := CRC16([]byte("123456789")); got != 0x31C3 {
		t.Errorf("CRC16(123456789) = %#04x, want 0x31C3", got)
	}
}

func TestSlot(t *testing.T) {
	for _, tc := range []struct {
		key  string
		slot int // -1: the CRC16 of the whole key
		tag  string
	}{
		{"123456789", 0x31C3 & 16383, "123456789"},
		{"foo", 12182, "foo"}, // redis-cli CLUSTER KEYSLOT foo
		{"bar", 5061, "bar"},
		{"", 0, ""},
		{"{user1000}.following", 3443, "user1000"}, // the spec's examples
		{"{user1000}.followers", 3443, "user1000"},
		{"foo{}{bar}", 8363, "foo{}{bar}"}, // an empty first tag: the whole key
		{"foo{{bar}}zap", 4015, "{bar"},    // the first '{' to the first '}'
		{"foo{bar}{zap}", 5061, "bar"},     // only the first tag
		{"{", -1, "{"},
		{"x{y", -1, "x{y"}, // no closing brace
		{"gbench:item:1", -1, "gbench:item:1"},
	} {
		if got := string(HashTag([]byte(tc.key))); got != tc.tag {
			t.Errorf("HashTag(%q) = %q, want %q", tc.key, got, tc.tag)
		}
		want := uint16(tc.slot)
		if tc.slot < 0 {
			want = CRC16([]byte(tc.key)) & 16383
		}
		if got := Slot([]byte(tc.key)); got != want {
			t.Errorf("Slot(%q) = %d, want %d", tc.key, got, want)
		}
	}
	if n := testing.AllocsPerRun(100, func() { Slot([]byte("{user1000}.following")) }); n != 0 {
		t.Errorf("Slot allocates %v times", n)
	}
}
