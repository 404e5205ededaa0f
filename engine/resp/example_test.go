package resp_test

import (
	"fmt"

	"github.com/gbench/gbench/engine/resp"
)

func ExampleReader() {
	var r resp.Reader
	buf := []byte("*3\r\n$5\r\nhello\r\n:42\r\n$-1\r\n-WRONGTYPE Operation against a key\r\n")
	for len(buf) > 0 {
		n, err := r.Parse(buf)
		if err != nil || n == 0 {
			fmt.Println("bad or incomplete reply:", err)
			return
		}
		vals := r.Values()
		top := &vals[r.Top()]
		switch {
		case top.IsError():
			fmt.Printf("error of class %s: %s\n", resp.ErrorClass(top.Bytes), top.Bytes)
		case top.Kind == resp.KindArray:
			for i := r.First(r.Top()); i >= 0; i = r.Next(i) {
				fmt.Printf("%s %q %d\n", vals[i].Kind, vals[i].Bytes, vals[i].Int)
			}
		}
		buf = buf[n:]
	}
	// Output:
	// bulk string "hello" 0
	// integer "" 42
	// null "" 0
	// error of class WRONGTYPE: WRONGTYPE Operation against a key
}

func ExampleReader_Need() {
	var r resp.Reader
	n, err := r.Parse([]byte("$1000\r\nabc"))
	fmt.Println(n, err, r.Need())
	// Output: 0 <nil> 1009
}

func ExampleAppendArrayHeader() {
	b := resp.AppendArrayHeader(nil, 3)
	b = resp.AppendBulkString(b, "SET")
	b = resp.AppendBulk(b, []byte("counter"))
	b = resp.AppendBulkInt(b, 42)
	fmt.Printf("%q\n", b)
	// Output: "*3\r\n$3\r\nSET\r\n$7\r\ncounter\r\n$2\r\n42\r\n"
}

func ExampleParseURL() {
	o, err := resp.ParseURL("redis://alice:s3cret@cache:6380/2?protocol=3")
	fmt.Println(o.Network, o.Addr, o.Username, o.DB, o.Protocol, err)
	fmt.Println(o.Redacted())
	_, err = resp.ParseURL("redis://:s3cret@cache:port")
	fmt.Println(err)
	// Output:
	// tcp cache:6380 alice 2 3 <nil>
	// redis://alice:xxxxx@cache:6380/2?protocol=3
	// invalid redis URL "redis://:xxxxx@cache:port": invalid port "port"
}
