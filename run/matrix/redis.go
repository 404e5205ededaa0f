package matrix

import (
	"strconv"
	"time"
)

// redisTimeout bounds one probe command.
const redisTimeout = 10 * time.Second

// infoFloat reads a number from an INFO map; missing or malformed reads as
// 0 and false.
func infoFloat(m map[string]string, key string) (float64, bool) {
	f, err := strconv.ParseFloat(m[key], 64)
	return f, err == nil
}

// infoInt is infoFloat for integers.
func infoInt(m map[string]string, key string) (int64, bool) {
	n, err := strconv.ParseInt(m[key], 10, 64)
	return n, err == nil
}
