package resp

import (
	"reflect"
	"strings"
	"testing"
)

// parseReply parses one whole reply into a new Reader.
func parseReply(t *testing.T, s string) *Reader {
	t.Helper()
	var r Reader
	n, err := r.Parse([]byte(s))
	if err != nil || n != len(s) {
		t.Fatalf("Parse: %d of %d bytes, %v", n, len(s), err)
	}
	return &r
}

// clusterSlots is a CLUSTER SLOTS reply of Redis 7: two ranges, the first
// with a replica and a node metadata map, the second with an unknown
// endpoint ("?").
const clusterSlots = "*2\r\n" +
	"*4\r\n:0\r\n:5460\r\n" +
	"*4\r\n$9\r\n127.0.0.1\r\n:30001\r\n$4\r\naaaa\r\n*0\r\n" +
	"*3\r\n$9\r\n127.0.0.1\r\n:30004\r\n$4\r\ndddd\r\n" +
	"*3\r\n:5461\r\n:16383\r\n" +
	"*3\r\n$1\r\n?\r\n:30002\r\n$4\r\nbbbb\r\n"

func TestParseClusterSlots(t *testing.T) {
	m, err := ParseClusterSlots(parseReply(t, clusterSlots))
	if err != nil {
		t.Fatal(err)
	}
	want := SlotMap{Ranges: []SlotRange{
		{0, 5460, Node{"aaaa", "127.0.0.1:30001", ""}, []Node{{"dddd", "127.0.0.1:30004", ""}}},
		{5461, 16383, Node{"bbbb", ":30002", ""}, nil},
	}}
	if !reflect.DeepEqual(m, want) {
		t.Errorf("got %+v\nwant %+v", m, want)
	}
	if m.Covered() != SlotCount {
		t.Errorf("Covered = %d", m.Covered())
	}
	for slot, id := range map[uint16]string{0: "aaaa", 5460: "aaaa", 5461: "bbbb", 16383: "bbbb"} {
		if r := m.Lookup(slot); r == nil || r.Master.ID != id {
			t.Errorf("Lookup(%d) = %+v, want master %s", slot, r, id)
		}
	}
}

// shardsRESP2 is a CLUSTER SHARDS reply over RESP2 (maps as flat arrays):
// a shard of two ranges with a master and a replica.
const shardsRESP2 = "*1\r\n" +
	"*4\r\n$5\r\nslots\r\n*4\r\n:0\r\n:99\r\n:200\r\n:16383\r\n" +
	"$5\r\nnodes\r\n*2\r\n" +
	"*10\r\n$2\r\nid\r\n$4\r\naaaa\r\n$4\r\nport\r\n:30001\r\n$2\r\nip\r\n$9\r\n127.0.0.1\r\n" +
	"$4\r\nrole\r\n$6\r\nmaster\r\n$6\r\nhealth\r\n$6\r\nonline\r\n" +
	"*10\r\n$2\r\nid\r\n$4\r\ndddd\r\n$4\r\nport\r\n:30004\r\n$8\r\nendpoint\r\n$6\r\nr.test\r\n" +
	"$4\r\nrole\r\n$7\r\nreplica\r\n$6\r\nhealth\r\n$6\r\nfailed\r\n"

// shardsRESP3 is the same over RESP3, with a shard without slots.
const shardsRESP3 = "*2\r\n" +
	"%2\r\n$5\r\nslots\r\n*4\r\n:0\r\n:99\r\n:200\r\n:16383\r\n" +
	"$5\r\nnodes\r\n*2\r\n" +
	"%5\r\n$2\r\nid\r\n$4\r\naaaa\r\n$4\r\nport\r\n:30001\r\n$2\r\nip\r\n$9\r\n127.0.0.1\r\n" +
	"$4\r\nrole\r\n$6\r\nmaster\r\n$6\r\nhealth\r\n$6\r\nonline\r\n" +
	"%5\r\n$2\r\nid\r\n$4\r\ndddd\r\n$4\r\nport\r\n:30004\r\n$8\r\nendpoint\r\n$6\r\nr.test\r\n" +
	"$4\r\nrole\r\n$7\r\nreplica\r\n$6\r\nhealth\r\n$6\r\nfailed\r\n" +
	"%2\r\n$5\r\nslots\r\n*0\r\n$5\r\nnodes\r\n*0\r\n"

func TestParseClusterShards(t *testing.T) {
	master, replica := Node{"aaaa", "127.0.0.1:30001", "online"}, Node{"dddd", "r.test:30004", "failed"}
	want := SlotMap{Ranges: []SlotRange{
		{0, 99, master, []Node{replica}},
		{200, 16383, master, []Node{replica}},
	}}
	for name, reply := range map[string]string{"RESP2": shardsRESP2, "RESP3": shardsRESP3} {
		m, err := ParseClusterShards(parseReply(t, reply))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if !reflect.DeepEqual(m, want) {
			t.Errorf("%s: got %+v\nwant %+v", name, m, want)
		}
		if m.Covered() != SlotCount-100 || m.Lookup(150) != nil || m.Lookup(99) == nil {
			t.Errorf("%s: Covered %d, Lookup(150) %v", name, m.Covered(), m.Lookup(150))
		}
	}
}

func TestParseSlotMapErrors(t *testing.T) {
	for _, tc := range []struct {
		shards bool
		reply  string
		want   string
	}{
		{false, "-ERR This instance has cluster support disabled\r\n", "CLUSTER SLOTS reply is an error: ERR This instance"},
		{false, "+OK\r\n", "CLUSTER SLOTS reply is a simple string, want an array"},
		{false, "*1\r\n*2\r\n:0\r\n:10\r\n", "CLUSTER SLOTS: slots 0-10 have no master"},
		{false, "*1\r\n*3\r\n:10\r\n:0\r\n*2\r\n$1\r\nh\r\n:1\r\n", "invalid slot range 10-0"},
		{false, "*1\r\n*3\r\n:0\r\n:16384\r\n*2\r\n$1\r\nh\r\n:1\r\n", "invalid slot range 0-16384"},
		{false, "*1\r\n*3\r\n:0\r\n:1\r\n*2\r\n$1\r\nh\r\n:0\r\n", "invalid port 0"},
		{false, "*2\r\n*3\r\n:0\r\n:10\r\n*2\r\n$1\r\nh\r\n:1\r\n*3\r\n:10\r\n:20\r\n*2\r\n$1\r\nh\r\n:1\r\n", "slot ranges 0-10 and 10-20 overlap"},
		{true, "*1\r\n*2\r\n$5\r\nslots\r\n*0\r\n", `a shard lacks "slots" or "nodes"`},
		{true, "*1\r\n*4\r\n$5\r\nslots\r\n*1\r\n:0\r\n$5\r\nnodes\r\n*0\r\n", `"slots" is not a list of start and end slots`},
		{true, "*1\r\n*4\r\n$5\r\nslots\r\n*2\r\n:0\r\n:5\r\n$5\r\nnodes\r\n*0\r\n", "slots 0-5 have no master"},
		{true, "*1\r\n*3\r\n$5\r\nslots\r\n*0\r\n$5\r\nnodes\r\n", "shard: a name without a value"},
	} {
		r := parseReply(t, tc.reply)
		var err error
		if tc.shards {
			_, err = ParseClusterShards(r)
		} else {
			_, err = ParseClusterSlots(r)
		}
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: error %v, want %q", tc.reply, err, tc.want)
		}
	}
}

func TestParseRedirect(t *testing.T) {
	for _, tc := range []struct {
		msg  string
		want Redirect
		ok   bool
	}{
		{"MOVED 3999 127.0.0.1:6381", Redirect{false, 3999, "127.0.0.1:6381"}, true},
		{"ASK 3999 127.0.0.1:6381", Redirect{true, 3999, "127.0.0.1:6381"}, true},
		{"MOVED 0 ::1:6381", Redirect{false, 0, "[::1]:6381"}, true}, // IPv6 without brackets
		{"MOVED 16383 [::1]:7000", Redirect{false, 16383, "[::1]:7000"}, true},
		{"MOVED 12 :7000", Redirect{false, 12, ":7000"}, true}, // unknown endpoint
		{"MOVED 16384 h:1", Redirect{}, false},
		{"MOVED 12 h", Redirect{}, false},
		{"MOVED 12 h:0", Redirect{}, false},
		{"MOVED x h:1", Redirect{}, false},
		{"MOVED 12", Redirect{}, false},
		{"ERR unknown command", Redirect{}, false},
		{"ASKING", Redirect{}, false},
	} {
		got, ok := ParseRedirect([]byte(tc.msg))
		if ok != tc.ok || got != tc.want {
			t.Errorf("ParseRedirect(%q) = %+v, %v; want %+v, %v", tc.msg, got, ok, tc.want, tc.ok)
		}
	}
}
