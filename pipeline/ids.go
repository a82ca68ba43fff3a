package pipeline

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"reflect"
	"strings"

	"github.com/rs/zerolog"

	"github.com/stratarag/strata/internal/graph"
	"github.com/stratarag/strata/pipeline/load"
)

// Errors of document identity. Both stop a run before it writes anything: an id names one
// document, and guessing which of two inputs the user meant would lose the other.
var (
	// ErrDuplicateID: two inputs of one run have the same document id and different content.
	ErrDuplicateID = errors.New("two inputs of this run have the same document id")
	// ErrIDTaken: an input's id is stored for another source (Options.Replace allows it).
	ErrIDTaken = errors.New("document id already stored for another source")
)

// maxListed bounds the clashes an error message lists one by one.
const maxListed = 5

// dedupeIDs refuses documents of one run that share an id but not their content, naming both
// sources of each clash. A document repeated whole (same id, text, title and metadata: a record
// copied twice into a JSON Lines file) loses nothing: it is kept once, and the repeats are
// counted.
func dedupeIDs(docs []load.Document, log zerolog.Logger) ([]load.Document, int, error) {
	first := make(map[string]int, len(docs))
	kept := docs[:0:0]
	var clashes []string
	for _, d := range docs {
		j, ok := first[d.ID]
		if !ok {
			first[d.ID] = len(kept)
			kept = append(kept, d)
			continue
		}
		if e := kept[j]; e.Text == d.Text && e.Title == d.Title && reflect.DeepEqual(e.Metadata, d.Metadata) {
			log.Info().Str("document", d.ID).Str("source", d.Source).Str("first", e.Source).Msg("the same document twice in this run; kept once")
			continue
		}
		clashes = append(clashes, fmt.Sprintf("%q is the id of %s and of %s", d.ID, kept[j].Source, d.Source))
	}
	if len(clashes) > 0 {
		return nil, 0, fmt.Errorf("%w: %s; a file's id is its path relative to the folder given (relative to the current directory "+
			"for a file named directly) and a JSON Lines record's is its \"id\": ingest the files' common parent folder or "+
			"name them directly, and give every JSON Lines record its own id", ErrDuplicateID, listed(clashes))
	}
	return kept, len(docs) - len(kept), nil
}

// listed joins up to maxListed items and says how many more there are.
func listed(items []string) string {
	if len(items) <= maxListed {
		return strings.Join(items, "; ")
	}
	return fmt.Sprintf("%s; and %d more", strings.Join(items[:maxListed], "; "), len(items)-maxListed)
}

// keepStoredIDs gives each text file the id the store already holds for it (graph.MetaSourcePrefix),
// so that a file ingested once through its folder and again through a parent folder, or named
// directly, stays one document.
func (in *Ingester) keepStoredIDs(ctx context.Context, docs []load.Document) error {
	for i := range docs {
		d := &docs[i]
		if d.Line > 0 {
			continue // JSON Lines records carry their own ids
		}
		id, ok, err := in.Store.Meta(ctx, graph.MetaSourcePrefix+d.File)
		if err != nil {
			return fmt.Errorf("read the stored id of %s: %w", d.File, err)
		}
		if ok && id != "" && id != d.ID {
			in.Log.Info().Str("source", d.File).Str("document", id).Str("id_in_this_run", d.ID).
				Msg("file already stored: it keeps its id")
			d.ID = id
		}
	}
	return nil
}

// checkStoredOwners refuses inputs whose id the store holds for another source, unless
// Options.Replace lets them take it over.
func (in *Ingester) checkStoredOwners(ctx context.Context, docs []load.Document) error {
	stored, err := in.storedDocuments(ctx, docs)
	if err != nil {
		return err
	}
	var clashes []string
	for _, d := range docs {
		s, ok := stored[d.ID]
		if !ok || sameSource(s.Source, d) {
			continue
		}
		if in.Options.Replace {
			in.Log.Warn().Str("document", d.ID).Str("stored_source", s.Source).Str("source", d.Source).
				Msg("--replace: this input takes over the document id")
			continue
		}
		clashes = append(clashes, fmt.Sprintf("%q is stored for %s, and %s would replace it", d.ID, s.Source, d.Source))
	}
	if len(clashes) == 0 {
		return nil
	}
	return fmt.Errorf("%w: %s; ingest the files from their common parent folder so that their ids differ, "+
		"or pass --replace to let this run's inputs take the ids over", ErrIDTaken, listed(clashes))
}

// sameSource reports whether a stored document's source is the input d: the same file, and for a
// JSON Lines record the same file whatever its line now.
func sameSource(stored string, d load.Document) bool {
	if stored == d.Source {
		return true
	}
	file := stored
	if d.Line > 0 {
		file = stripLine(stored)
	}
	if file == d.File {
		return true
	}
	// Stores written before sources were absolute hold the path as it was given: resolved from
	// the current directory it names the same file when the run is started from the same place.
	return !filepath.IsAbs(file) && load.SourcePath(file) == d.File
}

// stripLine removes the ":LINE" of a JSON Lines record's source.
func stripLine(source string) string {
	i := strings.LastIndexByte(source, ':')
	if i <= 0 || i == len(source)-1 {
		return source
	}
	for _, r := range source[i+1:] {
		if r < '0' || r > '9' {
			return source
		}
	}
	return source[:i]
}
