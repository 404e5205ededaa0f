package matrix

import (
	"fmt"
	"net"
	"strconv"
	"strings"
	"time"

	"github.com/gbench/gbench/engine/resp"
)

// redisTimeout bounds one probe command.
const redisTimeout = 10 * time.Second

// redisClient sends one command at a time on a connection it owns and
// reads the reply. It is not safe for concurrent use.
type redisClient struct {
	c   net.Conn
	r   resp.Reader
	buf []byte
	out []byte
}

// call sends a command and returns its reply as text: a string's content,
// an integer's digits, or the elements of an array of strings joined by
// newlines. An error reply is returned as an error.
func (rc *redisClient) call(args ...string) (string, error) {
	if err := rc.c.SetDeadline(time.Now().Add(redisTimeout)); err != nil {
		return "", err
	}
	rc.out = resp.AppendCommand(rc.out[:0], args...)
	if _, err := rc.c.Write(rc.out); err != nil {
		return "", err
	}
	rc.buf = rc.buf[:0]
	tmp := make([]byte, 16<<10)
	for {
		n, err := rc.r.Parse(rc.buf)
		if err != nil {
			return "", err
		}
		if n > 0 {
			return rc.text(args[0])
		}
		m, err := rc.c.Read(tmp)
		if err != nil {
			return "", err
		}
		rc.buf = append(rc.buf, tmp[:m]...)
	}
}

// text renders the parsed reply.
func (rc *redisClient) text(cmd string) (string, error) {
	vals := rc.r.Values()
	top := rc.r.Top()
	v := vals[top]
	switch {
	case v.IsError():
		return "", fmt.Errorf("redis %s: %s", cmd, v.Bytes)
	case v.Kind == resp.KindInt:
		return strconv.FormatInt(v.Int, 10), nil
	case v.IsAggregate():
		var parts []string
		for i := rc.r.First(top); i >= 0; i = rc.r.Next(i) {
			parts = append(parts, string(vals[i].Bytes))
		}
		return strings.Join(parts, "\n"), nil
	}
	return string(v.Bytes), nil
}

// info returns the fields of INFO (sections as given) by name.
func (rc *redisClient) info(sections ...string) (map[string]string, error) {
	text, err := rc.call(append([]string{"INFO"}, sections...)...)
	if err != nil {
		return nil, err
	}
	m := map[string]string{}
	for _, line := range strings.Split(text, "\n") {
		if k, v, ok := strings.Cut(strings.TrimSpace(line), ":"); ok && !strings.HasPrefix(k, "#") {
			m[k] = v
		}
	}
	return m, nil
}

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
