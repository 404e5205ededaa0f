package engine

import (
	"fmt"
	"strconv"

	"github.com/gbench/gbench/engine/resp"
	"github.com/gbench/gbench/script"
)

// storeRESP stores a \resp reply into variables for \gset or \aset. The
// reply is read as a one-row result: a scalar reply is a column named
// "reply", so \gset sets :reply and \gset p_ sets :p_reply; an array reply
// has one column per element named 1, 2, ..., so \gset v sets :v1, :v2, ...
// (an array needs a prefix, since names cannot start with a digit).
// Integers and doubles keep their type, bulk and simple strings are text
// (read later like pgbench text: "42" is an integer), nil is NULL, RESP3
// booleans are booleans.
func (c *client) storeRESP(cmd *script.Command, vals []resp.Value, top int) error {
	v := &vals[top]
	if !v.IsAggregate() {
		return c.storeRESPValue(cmd, v, []byte("reply"))
	}
	if v.Kind == resp.KindMap || v.Kind == resp.KindAttribute {
		return fmt.Errorf("\\%s cannot store a map reply", cmd.GSetName())
	}
	var name [20]byte
	n := 0
	for i := c.respFirst(top); i >= 0; i = c.respNext(i) {
		n++
		e := &vals[i]
		if e.IsAggregate() {
			return fmt.Errorf("\\%s cannot store a nested array reply", cmd.GSetName())
		}
		if err := c.storeRESPValue(cmd, e, strconv.AppendInt(name[:0], int64(n), 10)); err != nil {
			return err
		}
	}
	return nil
}

func (c *client) respFirst(i int) int { return c.rs.r.First(i) }
func (c *client) respNext(i int) int  { return c.rs.r.Next(i) }

// storeRESPValue stores one value under prefix + column.
func (c *client) storeRESPValue(cmd *script.Command, v *resp.Value, column []byte) error {
	key := append(append(c.rs.key[:0], cmd.Prefix...), column...)
	c.rs.key = key
	if !script.ValidVarName(key) {
		return fmt.Errorf("%s: invalid variable name: \"%s\"", cmd.GSetName(), key)
	}
	slot, ok := c.env.Vars.Symbols().Lookup(key)
	if !ok {
		return nil
	}
	vars := c.env.Vars
	switch v.Kind {
	case resp.KindInt:
		vars.SetInt(slot, v.Int)
	case resp.KindNull:
		vars.Set(slot, script.Null())
	case resp.KindBool:
		vars.Set(slot, script.Bool(v.Int != 0))
	case resp.KindDouble:
		vars.Set(slot, script.Double(v.Float))
	default:
		vars.SetReplyText(slot, v.Bytes)
	}
	return nil
}
