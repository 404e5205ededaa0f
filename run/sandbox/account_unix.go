//go:build unix

package sandbox

import (
	"fmt"
	"os"
	"os/user"
	"path/filepath"
	"slices"
	"strconv"
	"syscall"
)

// account is the OS user that runs initdb and postgres. A nil cred means
// gbench's own user.
type account struct {
	name string
	cred *syscall.Credential
}

// lookupAccount returns gbench's own user, or, when gbench runs as root,
// the user called name, because PostgreSQL refuses to run as root.
func lookupAccount(name string) (account, error) {
	if os.Geteuid() != 0 {
		return account{}, nil
	}
	u, err := user.Lookup(name)
	if err != nil {
		return account{}, fmt.Errorf("sandbox: PostgreSQL refuses to run as root and user %q does not exist; "+
			"create it (useradd --system %s) or set GBENCH_SANDBOX_USER to an unprivileged user", name, name)
	}
	uid, errU := strconv.ParseUint(u.Uid, 10, 32)
	gid, errG := strconv.ParseUint(u.Gid, 10, 32)
	if errU != nil || errG != nil {
		return account{}, fmt.Errorf("sandbox: user %q has a non-numeric uid %q or gid %q", name, u.Uid, u.Gid)
	}
	if uid == 0 {
		return account{}, fmt.Errorf("sandbox: user %q is root; set GBENCH_SANDBOX_USER to an unprivileged user", name)
	}
	cred := &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid), Groups: groups(u)}
	return account{name: name, cred: cred}, nil
}

// groups returns u's supplementary group ids, as a login would set them.
func groups(u *user.User) []uint32 {
	ids, _ := u.GroupIds() // without them the child just has its primary group
	var out []uint32
	for _, id := range ids {
		if n, err := strconv.ParseUint(id, 10, 32); err == nil {
			out = append(out, uint32(n))
		}
	}
	return out
}

// reach checks that the account can enter dir's parents. Root-created
// directories are often 0700 (os.MkdirTemp, /root), and initdb's own error
// would not say which one is in the way.
func (a account) reach(dir string) error {
	if a.cred == nil {
		return nil
	}
	for p := filepath.Dir(dir); ; p = filepath.Dir(p) {
		if st, err := os.Stat(p); err == nil && !a.canEnter(st) {
			return fmt.Errorf("sandbox: user %q cannot enter %s (mode %04o); choose a base directory it can reach, e.g. /tmp", a.name, p, uint32(st.Mode().Perm()))
		}
		if p == filepath.Dir(p) {
			return nil
		}
	}
}

// canEnter reports whether the account has search permission on a directory.
func (a account) canEnter(st os.FileInfo) bool {
	sys, ok := st.Sys().(*syscall.Stat_t)
	if !ok {
		return true // cannot tell; let initdb find out
	}
	perm := st.Mode().Perm()
	switch {
	case sys.Uid == a.cred.Uid:
		return perm&0o100 != 0
	case sys.Gid == a.cred.Gid || slices.Contains(a.cred.Groups, sys.Gid):
		return perm&0o010 != 0
	}
	return perm&0o001 != 0
}

// chown gives path to the account; a no-op for gbench's own user.
func (a account) chown(path string) error {
	if a.cred == nil {
		return nil
	}
	if err := os.Chown(path, int(a.cred.Uid), int(a.cred.Gid)); err != nil {
		return fmt.Errorf("sandbox: cannot give %s to user %q: %w", path, a.name, err)
	}
	return nil
}

// String says whose account this is, for progress messages.
func (a account) String() string {
	if a.cred == nil {
		return "current user"
	}
	return "user " + a.name
}
