package resp

import "testing"

func TestErrorClass(t *testing.T) {
	tests := []struct {
		msg, want string
	}{
		{"ERR unknown command 'FOO'", "ERR"},
		{"WRONGTYPE Operation against a key holding the wrong kind of value", "WRONGTYPE"},
		{"NOAUTH Authentication required.", "NOAUTH"},
		{"WRONGPASS invalid username-password pair or user is disabled.", "WRONGPASS"},
		{"MOVED 3999 127.0.0.1:6381", "MOVED"},
		{"ASK 3999 127.0.0.1:6381", "ASK"},
		{"NOSCRIPT No matching script. Please use EVAL.", "NOSCRIPT"},
		{"BUSY Redis is busy running a script.", "BUSY"},
		{"LOADING Redis is loading the dataset in memory", "LOADING"},
		{"READONLY You can't write against a read only replica.", "READONLY"},
		{"EXECABORT Transaction discarded because of previous errors.", "EXECABORT"},
		{"NOPERM this user has no permissions to run the 'set' command", "NOPERM"},
		{"OOM command not allowed when used memory > 'maxmemory'.", "OOM"},
		{"CROSSSLOT Keys in request don't hash to the same slot", "CROSSSLOT"},
		{"MYMODULE_ERR2 something", "MYMODULE_ERR2"}, // unknown classes are passed on
		{"NOAUTH", "NOAUTH"},        // no message after the class
		{"Error: something", "ERR"}, // not upper case
		{"bad thing happened", "ERR"},
		{"", "ERR"},
		{" ERR leading space", "ERR"},
		{"2FAST numbers first", "ERR"},
		{"ABCDEFGHIJKLMNOPQRSTUVWXYZABCDEFG too long to be a class", "ERR"},
	}
	for _, tt := range tests {
		if got := ErrorClass([]byte(tt.msg)); got != tt.want {
			t.Errorf("ErrorClass(%q) = %q, want %q", tt.msg, got, tt.want)
		}
	}
}
