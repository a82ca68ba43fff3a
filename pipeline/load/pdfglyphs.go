package load

import (
	"sort"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/encoding/charmap"
)

// glyphText is the text of a glyph name by the Adobe Glyph List's rules: a suffix after the
// first period is ignored ("one.oldstyle" is "one"), components joined by underscores are read
// one by one ("f_f_i" is "ffi", "Q_u" is "Qu"), and a component is a name of the list,
// "uniXXXX…" (code points of four hex digits each) or "uXXXX" to "uXXXXXX". It returns "" for a
// name it cannot read ("g42", ".notdef").
func glyphText(name string) string {
	if i := strings.IndexByte(name, '.'); i >= 0 {
		name = name[:i]
	}
	if name == "" {
		return ""
	}
	if !strings.Contains(name, "_") {
		return glyphComponent(name)
	}
	var b strings.Builder
	for part := range strings.SplitSeq(name, "_") {
		t := glyphComponent(part)
		if t == "" {
			return ""
		}
		b.WriteString(t)
	}
	return b.String()
}

func glyphComponent(name string) string {
	if i := sort.SearchStrings(aglNames[:], name); i < len(aglNames) && aglNames[i] == name {
		return aglText[i]
	}
	if hex, ok := strings.CutPrefix(name, "uni"); ok && len(hex) >= 4 && len(hex)%4 == 0 {
		var b strings.Builder
		for i := 0; i < len(hex); i += 4 {
			r, ok := codePoint(hex[i : i+4])
			if !ok {
				return ""
			}
			b.WriteRune(r)
		}
		return b.String()
	}
	if hex, ok := strings.CutPrefix(name, "u"); ok && len(hex) >= 4 && len(hex) <= 6 {
		if r, ok := codePoint(hex); ok {
			return string(r)
		}
	}
	return ""
}

// codePoint reads hex digits as a Unicode scalar value outside the surrogates.
func codePoint(hex string) (rune, bool) {
	v, err := strconv.ParseUint(hex, 16, 32)
	if err != nil || v > unicode.MaxRune || v >= 0xD800 && v <= 0xDFFF {
		return 0, false
	}
	return rune(v), true
}

// cleanGlyphText makes a glyph's text fit to store: ligatures become their letters, white space
// becomes a space, and control characters, U+FFFD and non-characters are removed. "" means the
// glyph has no usable text.
func cleanGlyphText(s string) string {
	clean := true
	for _, r := range s {
		if r < 0x20 || r >= 0x7f && r < 0xa0 || r == utf8.RuneError || r >= 0xfb00 && r <= 0xfb06 || isNonCharacter(r) {
			clean = false
			break
		}
	}
	if clean && utf8.ValidString(s) {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		switch {
		case r == '\t' || r == '\n' || r == '\r':
			b.WriteByte(' ')
		case r >= 0xfb00 && r <= 0xfb06:
			b.WriteString(ligatureLetters[r-0xfb00])
		case r < 0x20 || r >= 0x7f && r < 0xa0 || r == utf8.RuneError || isNonCharacter(r):
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

var ligatureLetters = [...]string{"ff", "fi", "fl", "ffi", "ffl", "st", "st"}

func isNonCharacter(r rune) bool {
	return r >= 0xfdd0 && r <= 0xfdef || r&0xfffe == 0xfffe
}

// baseEncoding is a simple font's code-to-text table before its Differences.
type baseEncoding int

const (
	standardEncoding baseEncoding = iota
	winAnsiEncoding
	macRomanEncoding
	symbolEncoding // the Symbol font's: only the characters it shares with ASCII are read
)

func encodingByName(name string) (baseEncoding, bool) {
	switch name {
	case "StandardEncoding":
		return standardEncoding, true
	case "WinAnsiEncoding":
		return winAnsiEncoding, true
	case "MacRomanEncoding", "MacExpertEncoding":
		return macRomanEncoding, true
	}
	return 0, false
}

// text returns the text of code c in the encoding, "" when it has none.
func (e baseEncoding) text(c byte) string {
	switch e {
	case winAnsiEncoding:
		if c < 0x20 {
			return ""
		}
		return string(charmap.Windows1252.DecodeByte(c))
	case macRomanEncoding:
		if c < 0x20 {
			return ""
		}
		return string(charmap.Macintosh.DecodeByte(c))
	case symbolEncoding:
		switch {
		case c == ' ' || c == '!' || c == '#' || c == '%' || c == '&' || c >= '(' && c <= ',' || c >= '.' && c <= '?' || c == '[' || c == ']' || c == '_' || c == '{' || c == '|' || c == '}':
			return string(rune(c))
		case c == 0xb7:
			return "•"
		}
		return ""
	}
	switch {
	case c == '\'':
		return "’"
	case c == '`':
		return "‘"
	case c >= 0x20 && c < 0x7f:
		return string(rune(c))
	case c >= 0xa1:
		return standardHigh[c-0xa1]
	}
	return ""
}

// standardHigh is StandardEncoding from code 0xA1 on.
var standardHigh = [...]string{
	"¡", "¢", "£", "⁄", "¥", "ƒ", "§", "¤", "'", "“", "«", "‹", "›", "fi", "fl", // A1–AF
	"", "–", "†", "‡", "·", "", "¶", "•", "‚", "„", "”", "»", "…", "‰", "", "¿", // B0–BF
	"", "`", "´", "ˆ", "˜", "¯", "˘", "˙", "¨", "", "˚", "¸", "", "˝", "˛", "ˇ", // C0–CF
	"—", "", "", "", "", "", "", "", "", "", "", "", "", "", "", "", // D0–DF
	"", "Æ", "", "ª", "", "", "", "", "Ł", "Ø", "Œ", "º", "", "", "", "", // E0–EF
	"", "æ", "", "", "", "ı", "", "", "ł", "ø", "œ", "ß", "", "", "", "", // F0–FF
}
