package workloads

import (
	"crypto/md5"
	"encoding/hex"
	"strconv"
	"strings"

	"github.com/gbench/gbench/script"
)

// UUID is script's uuid(n): the key of session n (gbench.uuid in SQL).
func UUID(n int64) string { return string(script.AppendUUID(nil, n)) }

// SessionValue is the article's value Load stores for session n, in
// PostgreSQL (dataset.sql's session_value) and in Redis: a small serialized
// session object of about 190 bytes, as JSON.
func SessionValue(n int64) string {
	csrf := md5.Sum([]byte("gbench-csrf:" + strconv.FormatInt(n, 10)))
	return `{"sid":"` + UUID(n) + `","user_id":` + strconv.FormatInt(n, 10) + `,"created":` + strconv.FormatInt(1700000000+n, 10) +
		`,"ttl":3600,"roles":["user"],"csrf":"` + hex.EncodeToString(csrf[:]) + `","agent":"Mozilla/5.0 (gbench)"}`
}

// Value is the value Load stores for id at size bytes, in PostgreSQL
// (dataset.sql's item_value) and in Redis: the decimal id and a dash, then
// the hex MD5 of the decimal id repeated, cut to size bytes, as
// rpad(id || '-', size, md5(id::text)). It is ASCII, has no blanks and no
// colons, so it can be substituted into \resp arguments as it is.
func Value(id int64, size int) string {
	if size <= 0 {
		return ""
	}
	text := strconv.FormatInt(id, 10)
	sum := md5.Sum([]byte(text))
	fill := hex.EncodeToString(sum[:])
	var b strings.Builder
	b.Grow(size)
	b.WriteString(text)
	b.WriteByte('-')
	for b.Len() < size {
		b.WriteString(fill)
	}
	return b.String()[:size]
}
