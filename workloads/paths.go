package workloads

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/gbench/gbench/script"
)

// The read of each path, with %s standing for the key list: ":keys" in a
// script, "$1" where Contract binds an int8[] itself.
const (
	anyQuery  = "SELECT id, v FROM " + ItemsTable + " WHERE id = ANY(%s)"
	mgetQuery = "SELECT " + Schema + ".mget(%s)"
)

// Where the dataset lives: everything gbench creates in PostgreSQL is in
// Schema, every Redis key it sets starts with KeyPrefix. Load refuses to
// touch what it did not create there (see Load).
const (
	// Schema is the PostgreSQL schema of the dataset's tables and
	// functions.
	Schema = "gbench"
	// ItemsTable is the table every read path reads.
	ItemsTable = Schema + ".items"
	// KeyPrefix starts every Redis key of the dataset.
	KeyPrefix = "gbench:"
	// MarkerKey is the Redis hash that marks a database as holding the
	// dataset: Load sets it before it sets any other key.
	MarkerKey = KeyPrefix + "dataset"
	// Marker starts the comment of every PostgreSQL object of the
	// dataset, the schema included.
	Marker = "gbench dataset"
)

// Key prefixes in Redis: the items, the cold-fill cache and the kv table.
const (
	itemPrefix  = KeyPrefix + "item:"
	cachePrefix = KeyPrefix + "cache:"
	kvPrefix    = KeyPrefix + "kv:"
	ycsbPrefix  = KeyPrefix + "ycsb:"
	// sessionPrefix: the article's sessions, gbench:session:<uuid(n)>.
	sessionPrefix = KeyPrefix + "session:"
	// taggedPrefix: the hash-tagged items, gbench:{item:G}:<id>
	// (TaggedItemKey).
	taggedPrefix = KeyPrefix + "{item:"
)

// dataPrefixes are the prefixes of the keys Load sets or removes.
var dataPrefixes = []string{itemPrefix, kvPrefix, cachePrefix, ycsbPrefix, sessionPrefix, taggedPrefix}

// TagGroup is how many consecutive ids share a hash tag in the tagged
// copy of the items (Options.Tagged): ids 1..64 are group 0, 65..128
// group 1, and so on. 64 is the largest MGET of the bundled workloads.
const TagGroup = 64

// TaggedItemKey returns the hash-tagged key of item id,
// gbench:{item:G}:<id> with G = (id-1)/TagGroup: the keys of a group
// share the slot of the tag item:G, and the groups spread over the slots
// (and a cluster's masters) as any keys do.
func TaggedItemKey(id int64) string {
	return taggedPrefix + strconv.FormatInt((id-1)/TagGroup, 10) + "}:" + strconv.FormatInt(id, 10)
}

// isTaggedItem reports whether key is TaggedItemKey(id) for an id in
// 1..items.
func isTaggedItem(key string, items int) bool {
	_, idText, ok := strings.Cut(key[len(taggedPrefix):], "}:")
	id, err := strconv.ParseInt(idText, 10, 64)
	return ok && err == nil && id >= 1 && id <= int64(items) && TaggedItemKey(id) == key
}

// KeyCounts returns the numbers of keys per request of the reference
// matrix: 1, 16 and 64. The slice is new on each call.
func KeyCounts() []int { return []int{1, 16, 64} }

// Connections returns the client counts (-c) of the reference matrix: 4,
// 64 and 256. The slice is new on each call.
func Connections() []int { return []int{4, 64, 256} }

// Path is one of the three ways the benchmark reads the same rows. Paths
// are plain values, safe to copy and to use concurrently.
type Path struct {
	// Name is "sql-any", "sql-mget" or "resp-mget".
	Name string
	// Mode is the query mode (-M) the path is measured in.
	Mode script.Mode
	// SQL and RESP say which servers the path's scripts talk to.
	SQL, RESP bool

	file string // file name stem, e.g. "mget"
	read string // the read command, reading the list :keys
}

// Paths returns the three read paths in the reference's order: prepared
// SQL with = ANY($1) (rows back in any order), the SQL function mget (one
// JSON array in request order) and Redis MGET. The slice is new on each
// call.
func Paths() []Path {
	return []Path{
		{Name: "sql-any", Mode: script.Prepared, SQL: true, file: "any", read: fmt.Sprintf(anyQuery, ":keys") + ";"},
		{Name: "sql-mget", Mode: script.Prepared, SQL: true, file: "mget", read: fmt.Sprintf(mgetQuery, ":keys") + ";"},
		{Name: "resp-mget", Mode: script.Simple, RESP: true, file: "resp-mget", read: `\resp MGET ` + itemPrefix + ":keys"},
	}
}

// Script returns the script of a read of keys keys on p, the body of the
// bundled file when there is one: the fixed keys 1..keys, as in the
// reference matrix, or, when random is set, keys distinct keys drawn from
// 1..:items, which the runner must define (-D items=N, the rows loaded).
// keys must be at least 1.
func (p Path) Script(keys int, random bool) string {
	n := strconv.Itoa(keys)
	choose := `\set keys range(1, ` + n + ")"
	if random {
		choose = `\set keys random_keys(1, :items, ` + n + ")"
	}
	return choose + "\n" + p.read + "\n"
}

// Read returns the path's read command, which reads the list variable
// :keys: an SQL statement ending in ";" or a \resp line.
func (p Path) Read() string { return p.read }

// File returns the name of the bundled file holding p.Script(keys, random),
// such as "mget64.sql" or "resp-mget16-random.sql", or "" when keys is not
// one of KeyCounts.
func (p Path) File(keys int, random bool) string {
	if !slices.Contains(KeyCounts(), keys) {
		return ""
	}
	name := p.file + strconv.Itoa(keys)
	if random {
		name += "-random"
	}
	return name + ".sql"
}

// Defines returns the -D variables p.Script(keys, random) reads: "items"
// for random keys, none otherwise.
func (p Path) Defines(random bool) []string {
	if random {
		return []string{"items"}
	}
	return nil
}

// workload is the Workloads entry of p's bundled read file.
func (p Path) workload(keys int, random bool) Workload {
	return Workload{Name: p.File(keys, random), Group: "read", Mode: p.Mode, SQL: p.SQL, RESP: p.RESP, Defines: p.Defines(random)}
}
