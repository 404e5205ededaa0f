// Package jsonfile reads the JSON files gbench writes (results, matrix
// results) with errors that say where a file is broken, so that a
// truncated or hand-edited file gets a message a user can act on.
package jsonfile

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// Decode reads all of rd and decodes it, one JSON value, into v. A syntax
// or type error says where, as "line L, column C: ...", and names the
// field of a type error.
func Decode(rd io.Reader, v any) error {
	data, err := io.ReadAll(rd)
	if err != nil {
		return err
	}
	err = json.Unmarshal(data, v)
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case err == nil:
		return nil
	case errors.As(err, &se):
		return fmt.Errorf("%s: %v", position(data, se.Offset), se)
	case errors.As(err, &te):
		return fmt.Errorf("%s: %s: %s where %s was expected", position(data, te.Offset), fieldName(te), te.Value, te.Type)
	case errors.Is(err, io.ErrUnexpectedEOF):
		return fmt.Errorf("%s: unexpected end of the file (truncated?)", position(data, int64(len(data))))
	}
	return err
}

func fieldName(te *json.UnmarshalTypeError) string {
	if te.Field == "" {
		return "the result"
	}
	return te.Field
}

// position spells a byte offset as "line L, column C" (1-based, columns
// in bytes).
func position(data []byte, off int64) string {
	off = max(0, min(off, int64(len(data))))
	line, col := 1, 1
	for _, c := range data[:off] {
		if c == '\n' {
			line, col = line+1, 1
		} else {
			col++
		}
	}
	return fmt.Sprintf("line %d, column %d", line, col)
}
