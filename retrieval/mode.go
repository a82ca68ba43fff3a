package retrieval

import (
	"fmt"
	"strconv"
	"strings"
)

// Mode selects how a query retrieves its context. A Mode comes from one of the constants or from
// ParseMode; the zero value is DefaultMode.
type Mode int

// The query modes, in the order help text lists them.
const (
	// ModeHi is HiRAG's three-level retrieval: the top entities (local level), the community
	// reports containing them (global level), the shortest paths that bridge them (bridge level),
	// and their source chunks.
	ModeHi Mode = iota
	// ModeNaive fuses chunk vector search with full-text (BM25) search.
	ModeNaive
	// ModeLocal is GraphRAG's local search: entities, their relations, chunks and community
	// reports.
	ModeLocal
	// ModeGlobal is GraphRAG's global search: the reports of one community level mapped to
	// scored key points, the best points kept.
	ModeGlobal
	// ModeHiLocal, ModeHiGlobal, ModeHiBridge and ModeHiNoBridge are the ablations of HiRAG's
	// paper: one or two of its three knowledge levels, always with the source chunks.
	ModeHiLocal
	ModeHiGlobal
	ModeHiBridge
	ModeHiNoBridge
	// ModeLCA is LeanRAG's retrieval: base-layer seed entities, the paths up the summary
	// hierarchy to their lowest common ancestor with the relations among the entities on them,
	// and the source chunks (lca.go).
	ModeLCA
	// ModeArch is ArchRAG's search of the attributed-community hierarchy (ingest --arch): the
	// nearest nodes of every layer, descending from the top through the nearest communities'
	// members, scored points per layer, the best kept (retrieval/arch.go).
	ModeArch
	// ModePPR ranks chunks by personalized PageRank over entities and chunks, seeded from the
	// question's entities and its best lexical chunks (HippoRAG 2; retrieval/ppr.go), laid out
	// as naive lays out its chunks.
	ModePPR
)

// DefaultMode is the mode of a query that names none.
const DefaultMode = ModeHi

// Modes returns every mode, in the order help text lists them.
func Modes() []Mode {
	return []Mode{ModeHi, ModeNaive, ModeLocal, ModeGlobal, ModeHiLocal, ModeHiGlobal, ModeHiBridge, ModeHiNoBridge, ModeLCA, ModeArch, ModePPR}
}

// String returns the mode's name, as ParseMode reads it and the --mode flag takes it.
func (m Mode) String() string {
	switch m {
	case ModeHi:
		return "hi"
	case ModeNaive:
		return "naive"
	case ModeLocal:
		return "local"
	case ModeGlobal:
		return "global"
	case ModeHiLocal:
		return "hi_local"
	case ModeHiGlobal:
		return "hi_global"
	case ModeHiBridge:
		return "hi_bridge"
	case ModeHiNoBridge:
		return "hi_nobridge"
	case ModeLCA:
		return "lca"
	case ModeArch:
		return "arch"
	case ModePPR:
		return "ppr"
	}
	return "Mode(" + strconv.Itoa(int(m)) + ")"
}

// ParseMode returns the mode named s. Its error lists the valid names.
func ParseMode(s string) (Mode, error) {
	names := make([]string, 0, len(Modes()))
	for _, m := range Modes() {
		if m.String() == s {
			return m, nil
		}
		names = append(names, m.String())
	}
	return DefaultMode, fmt.Errorf("unknown mode %q (want one of %s)", s, strings.Join(names, ", "))
}

// MarshalText writes the mode's name, so that JSON results say "hi", not 0.
func (m Mode) MarshalText() ([]byte, error) { return []byte(m.String()), nil }

// UnmarshalText reads a mode's name with ParseMode.
func (m *Mode) UnmarshalText(text []byte) error {
	parsed, err := ParseMode(string(text))
	if err != nil {
		return err
	}
	*m = parsed
	return nil
}

// levels are the knowledge levels HiRAG's retrieval puts in the context; source chunks always
// go in.
type levels struct {
	global, bridge, local bool
}

// levels returns the knowledge levels of a hi mode: all three for ModeHi, one or two for its
// ablations. The ablations are told apart here and nowhere else.
func (m Mode) levels() levels {
	switch m {
	case ModeHiLocal:
		return levels{local: true}
	case ModeHiGlobal:
		return levels{global: true}
	case ModeHiBridge:
		return levels{bridge: true}
	case ModeHiNoBridge:
		return levels{global: true, local: true}
	}
	return levels{global: true, bridge: true, local: true}
}
