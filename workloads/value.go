package workloads

import (
	"crypto/md5"
	"encoding/hex"
	"strconv"
	"strings"
)

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
