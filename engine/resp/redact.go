package resp

import (
	"net/url"
	"strconv"
	"strings"
)

// redacted replaces passwords in what users see.
const redacted = "xxxxx"

// Redacted returns o as a URL that ParseURL accepts, with the password
// replaced by "xxxxx", for logs and reports. Parsed back, it gives o again
// (but for the password): a protocol given explicitly, timeouts other than
// the defaults and insecure_skip_verify are kept.
func (o Options) Redacted() string {
	var b strings.Builder
	if o.MasterName != "" {
		b.WriteString("redis-sentinel://")
		o.writeUserinfo(&b)
		b.WriteString(strings.Join(o.Sentinels, ",") + "/" + url.PathEscape(o.MasterName))
		if o.DB != 0 {
			b.WriteString("/" + strconv.Itoa(o.DB))
		}
	} else if o.Cluster {
		b.WriteString("redis")
		if o.TLS != nil {
			b.WriteByte('s')
		}
		b.WriteString("+cluster://")
		o.writeUserinfo(&b)
		b.WriteString(strings.Join(o.Seeds, ","))
	} else if o.Network == "unix" {
		b.WriteString("unix://")
		o.writeUserinfo(&b)
		b.WriteString(pathEscaper.Replace(o.Addr))
	} else {
		b.WriteString("redis")
		if o.TLS != nil {
			b.WriteByte('s')
		}
		b.WriteString("://")
		o.writeUserinfo(&b)
		b.WriteString(o.Addr)
		if o.DB != 0 {
			b.WriteString("/" + strconv.Itoa(o.DB))
		}
	}
	o.writeParams(&b)
	return b.String()
}

var pathEscaper = strings.NewReplacer("%", "%25", "?", "%3F", "@", "%40")

func (o Options) writeUserinfo(b *strings.Builder) {
	if o.Password == "" && o.Username == "" {
		return
	}
	b.WriteString(strings.ReplaceAll(url.QueryEscape(o.Username), "+", "%20") + ":")
	if o.Password != "" {
		b.WriteString(redacted)
	}
	b.WriteByte('@')
}

func (o Options) writeParams(b *strings.Builder) {
	sep := byte('?')
	add := func(kv string) {
		b.WriteByte(sep)
		b.WriteString(kv)
		sep = '&'
	}
	if o.Network == "unix" && o.DB != 0 {
		add("db=" + strconv.Itoa(o.DB))
	}
	if o.Protocol != 0 {
		add("protocol=" + strconv.Itoa(o.Protocol))
	}
	if o.DialTimeout != DefaultDialTimeout {
		add("dial_timeout=" + o.DialTimeout.String())
	}
	if o.ReadTimeout != DefaultReadTimeout {
		add("read_timeout=" + o.ReadTimeout.String())
	}
	if o.TLS != nil && o.TLS.InsecureSkipVerify {
		add("insecure_skip_verify=true")
	}
	if o.ReadFrom != ReadMasters {
		add("rfr=" + o.ReadFrom.String())
	}
	if o.Split {
		add("split=slot")
	}
	if o.SentinelUsername != "" {
		add("sentinel_user=" + url.QueryEscape(o.SentinelUsername))
	}
	if o.SentinelPassword != "" {
		add("sentinel_password=" + redacted)
	}
}

// RedactURL returns a Redis URL, valid or not, the way ParseURL's errors
// quote it: passwords and the values of unknown parameters read "xxxxx".
func RedactURL(s string) string { return redact(s) }

// redact hides the passwords in a URL given to ParseURL, valid or not. Where
// the URL is too broken to tell, everything before its last '@' is hidden.
func redact(s string) string {
	u := splitURL(s)
	var b strings.Builder
	switch {
	case u.noScheme && u.hasUser:
		b.WriteString(redacted + "@")
	case !u.noScheme && !u.bare:
		b.WriteString(u.raw + "://")
		if u.hasUser {
			user, _, ok := strings.Cut(u.userinfo, ":")
			if ok {
				b.WriteString(user + ":")
			}
			b.WriteString(redacted + "@")
		}
	}
	b.WriteString(u.rest)
	if u.hasQuery {
		b.WriteByte('?')
		b.WriteString(redactQuery(u.query))
	}
	return b.String()
}

// redactQuery hides the value of every parameter not known to be harmless:
// password, and any misspelling of it.
func redactQuery(q string) string {
	parts := strings.Split(q, "&")
	for i, part := range parts {
		k, _, _ := strings.Cut(part, "=")
		if part != "" && !publicParams[k] {
			parts[i] = k + "=" + redacted
		}
	}
	return strings.Join(parts, "&")
}

var publicParams = map[string]bool{
	"db": true, "user": true, "protocol": true, "dial_timeout": true,
	"read_timeout": true, "insecure_skip_verify": true, "connect_timeout": true,
	"sentinel_user": true, "cluster": true, "rfr": true, "split": true,
}
