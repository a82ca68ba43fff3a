package retrieval

import (
	"cmp"
	"context"
	"math"
	"slices"
	"strings"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/stratarag/strata/internal/graph"
)

// Parameters of LeanRAG's lowest-common-ancestor retrieval (the lca mode).
const (
	lcaEntities   = 10 // n: base-layer seed entities
	lcaOversample = 10 // candidates searched per seed, over all layers (summaries are skipped)
)

// lcaGraphRatio is hi's hiGraphRatio a little smaller: lca's sources are other chunks than hi's,
// and LeanRAG's claim is less context than the flat alternatives, not as much.
const lcaGraphRatio = 0.3

// lcaSummaryWords caps a summary's description in the context: a summary says what its
// members have in common in its first sentences, and the section holds several, the ends of the
// relations among them first.
const lcaSummaryWords = 30

// lcaSubjectWeight is the weight of the documents about the seeds (lcaSubjects), hi's about
// weight; larger weights helped hp and cost testdata (docs/RETRIEVAL.md).
const lcaSubjectWeight = 0.3

// Weights of the hop from the top lexical document (lcaHop): the documents it reaches through
// the entities under the groups' ancestors, and the documents about the entities it names
// among the seeds and under those ancestors. Chosen on multihop and hp (docs/RETRIEVAL.md).
const (
	lcaHopWeight   = 0.3
	lcaNamedWeight = 0.4
)

// lcaGroup is a set of seeds and their lowest common ancestor in the summary hierarchy.
type lcaGroup struct {
	seeds []string
	lca   string
}

// lca is LeanRAG's retrieval over the hierarchy: the top-n base-layer entities (seeds) by the
// entity search of the other modes, the ones the question names first (lcaSeeds); their lowest
// common ancestor over SUMMARIZED_BY (per group of seeds that share one, when not all do:
// lcaGroups); the entities on the paths from each seed up to its group's ancestor and the
// relations among them, which are the seeds' own relations and the inter-summary relations of
// LeanRAG's aggregation at the layers the paths touch; and the source chunks, ranked as hi ranks
// them from the question's words (lexical channel), the seeds' chunks, the chunks of the base
// relations among the seeds, the documents about the seeds, and one hop from the top lexical
// document through the entities it names that lie under the groups' ancestors (lcaHop). The walk
// up the hierarchy is one store call (graph.HierarchyReader.Ancestors: Cypher on Neo4j, SQL on
// the embedded store); the ancestor is found here, the same for both.
func (e *Engine) lca(ctx context.Context, question string, qvec []float32, opt Options, res *Result) error {
	// The seeds and their ancestors, and the lexical chunks with the links of the top document
	// and the hierarchy above the entities it names, are independent: two concurrent rounds of
	// store calls, as in hi.
	var (
		f       lcaFound
		lx      lcaLexicalFound
		lexTime time.Duration
	)
	g, gctx := errgroup.WithContext(ctx)
	g.Go(func() (err error) {
		t := time.Now()
		lap := func(name string) { res.TimingsMS[name] = ms(time.Since(t)); t = time.Now() }
		f, err = e.lcaFind(gctx, question, qvec, opt, lap)
		return err
	})
	g.Go(func() (err error) {
		t := time.Now()
		defer func() { lexTime = time.Since(t) }()
		lx, err = e.lcaLexical(gctx, question, qvec, opt)
		return err
	})
	if err := g.Wait(); err != nil {
		return err
	}
	res.TimingsMS["lexical"] = ms(lexTime)
	return e.lcaContext(ctx, question, qvec, opt, res, f, lx)
}

// lcaFound is what lca finds before it ranks chunks: the seeds, the hierarchy above them, their
// groups with their lowest common ancestors, and the entity candidates' scores.
type lcaFound struct {
	seeds  []string
	named  int // seeds[:named] are those the question names (lcaSeeds)
	h      graph.Hierarchy
	groups []lcaGroup
	score  map[string]float64
}

// lcaFind searches the seeds and walks up the hierarchy from them; lap(name) is called after
// each step.
func (e *Engine) lcaFind(ctx context.Context, question string, qvec []float32, opt Options, lap func(string)) (lcaFound, error) {
	var f lcaFound
	candidates, err := e.hybridSearch(ctx, graph.EntityEmbedding, graph.EntityText, question, qvec, opt.Entities*lcaOversample, 1)
	if err != nil {
		return f, err
	}
	ids := make([]string, len(candidates))
	f.score = make(map[string]float64, len(candidates))
	for i, h := range candidates {
		ids[i], f.score[h.ID] = h.ID, h.Score
	}
	found, err := e.Store.Entities(ctx, ids)
	if err != nil {
		return f, err
	}
	f.seeds, f.named = lcaSeeds(question, found, opt.Entities)
	lap("entities")
	if len(f.seeds) == 0 {
		return f, nil
	}
	if f.h, err = e.Store.Ancestors(ctx, f.seeds); err != nil {
		return f, err
	}
	f.groups = lcaGroups(f.seeds, f.h.Links)
	lap("ancestors")
	return f, nil
}

// lcaSeeds returns the first n base-layer entities of found (the entity search's candidates, in
// rank order), those whose name the question contains as a phrase (case and punctuation aside,
// names of function words only left out) before the others. The entity search ranks by the
// words an entity's name and description share with the question, so a setting entity with a
// long description ("Mexican brassbuttons" for "the Pterocarya or the Cotula") can come before
// the one the question names, and the seeds decide which documents are about the question.
func lcaSeeds(question string, found []graph.Entity, n int) (seeds []string, named int) {
	q := " " + strings.Join(wordsOf(question), " ") + " "
	var rest []string
	for _, en := range found {
		if en.Layer != 0 {
			continue
		}
		w := wordsOf(en.Name)
		if len(w) > 0 && !onlyFunctionWords(w) && strings.Contains(q, " "+strings.Join(w, " ")+" ") {
			seeds = append(seeds, en.ID)
		} else {
			rest = append(rest, en.ID)
		}
	}
	named = len(seeds)
	seeds = append(seeds, rest...)
	return seeds[:min(n, len(seeds))], min(n, named)
}

// lcaLexicalFound is what lca finds from the question's words: the lexical chunks, the document
// links (graph.Searcher.DocumentLinks) of the first lexical document's chunks, where lca's hop
// starts (lcaHop), and the summary links above the entities those links name that another
// document names too (the others lead nowhere).
type lcaLexicalFound struct {
	chunks []graph.Chunk
	links  []graph.DocumentLink
	above  []graph.SummaryLink
}

// lcaLexical reads what lcaLexicalFound holds: three store calls, one after the other, beside
// the seeds' (lcaFind), so that the hop waits for neither.
func (e *Engine) lcaLexical(ctx context.Context, question string, qvec []float32, opt Options) (lcaLexicalFound, error) {
	lexical, _, err := e.lexicalChunks(ctx, question, qvec, opt.TopK*4)
	if err != nil {
		return lcaLexicalFound{}, err
	}
	return e.lcaTopLinks(ctx, lexical)
}

// lcaTopLinks reads the links of the first document of lexical and the hierarchy above the
// entities they name (see lcaLexicalFound).
func (e *Engine) lcaTopLinks(ctx context.Context, lexical []graph.Chunk) (lcaLexicalFound, error) {
	lx := lcaLexicalFound{chunks: lexical}
	if len(lexical) == 0 {
		return lx, nil
	}
	var err error
	var from []string
	for _, c := range lx.chunks {
		if c.DocumentID == lx.chunks[0].DocumentID {
			from = append(from, c.ID)
		}
	}
	if lx.links, err = e.Store.DocumentLinks(ctx, from, walkMaxDocuments); err != nil {
		return lx, err
	}
	var linked []string // in id order, as the links are
	for _, l := range lx.links {
		if l.Documents > 1 && (len(linked) == 0 || linked[len(linked)-1] != l.EntityID) {
			linked = append(linked, l.EntityID)
		}
	}
	if len(linked) > 0 {
		lx.above, err = e.Store.AncestorLinks(ctx, linked)
	}
	return lx, err
}

// lcaContext ranks the chunks and writes the context of lca mode.
func (e *Engine) lcaContext(ctx context.Context, question string, qvec []float32, opt Options, res *Result, f lcaFound, lx lcaLexicalFound) error {
	seeds, h, groups, score := f.seeds, f.h, f.groups, f.score
	onPath := pathNodes(groups, h.Links)
	byID := make(map[string]graph.Entity, len(h.Entities))
	for _, en := range h.Entities {
		byID[en.ID] = en
	}
	names := make(map[string]string, len(h.Entities))
	for _, en := range h.Entities {
		names[en.ID] = en.Name
	}

	// Entities: the seeds in rank order, then the summaries on the paths, group by group, lower
	// layers first and each group's ancestor last, so the budget drops the most general first.
	var seedItems, summaryItems []EntityItem
	for _, id := range seeds {
		if en, ok := byID[id]; ok {
			seedItems = append(seedItems, EntityItem{ID: en.ID, Name: en.Name, Type: en.Type, Description: en.Description, Layer: en.Layer, Score: score[id]})
		}
	}
	listed := map[string]bool{}
	for _, g := range groups {
		var ids []string
		for id := range onPath {
			if onPath[id][g.lca] && byID[id].Layer > 0 && !listed[id] {
				ids = append(ids, id)
			}
		}
		slices.SortFunc(ids, func(a, b string) int { return cmp.Or(cmp.Compare(byID[a].Layer, byID[b].Layer), cmp.Compare(a, b)) })
		for _, id := range ids {
			listed[id] = true
			en := byID[id]
			summaryItems = append(summaryItems, EntityItem{ID: en.ID, Name: en.Name, Type: en.Type, Description: en.Description, Layer: en.Layer, Score: score[id]})
		}
	}

	// Relations among the entities on the paths: inter-summary relations first (the hierarchy's
	// own knowledge, what the other modes lack), then the seeds' relations, each by weight; then
	// the SUMMARIZED_BY steps of the paths.
	summaryRels, baseRels := lcaRelations(h, onPath, byID)
	byWeight := func(a, b graph.Relation) int {
		return cmp.Or(cmp.Compare(b.Weight, a.Weight), cmp.Compare(a.Source, b.Source), cmp.Compare(a.Target, b.Target))
	}
	slices.SortFunc(summaryRels, byWeight)
	slices.SortFunc(baseRels, byWeight)
	var paths []PathItem
	for _, r := range append(summaryRels, baseRels...) {
		paths = append(paths, PathItem{Source: nameOr(names, r.Source), Target: nameOr(names, r.Target), Description: r.Description, Weight: r.Weight})
	}
	for _, l := range h.Links {
		if len(onPath[l.Member]) > 0 && len(onPath[l.Summary]) > 0 {
			paths = append(paths, PathItem{Source: nameOr(names, l.Member), Target: nameOr(names, l.Summary), Description: l.Description, Weight: l.Weight})
		}
	}

	// Source chunks.
	channels, named, err := e.lcaChannels(ctx, question, qvec, opt, f, baseRels, lx)
	if err != nil {
		return err
	}
	ranked, scores := fuseDocuments(channels, named, nil, opt.TopK)
	chunkItems, err := e.chunkItems(ctx, ranked, scores)
	if err != nil {
		return err
	}

	// Laid out as hi's context is (hiContext): the sources first, the first hiFullShare whole
	// and the others by their excerpt, then the graph sections within lcaGraphRatio tokens per
	// token of source text, in HiRAG's proportions, the summaries in the place of its
	// backgrounds and their relations in the place of its reasoning paths.
	total := opt.MaxContextTokens
	sources := newContextBuilder(e.Tokenizer)
	full := int(math.Ceil(hiFullShare * float64(opt.TopK)))
	budget := int(float64(total) / (1 + hiGraphRatio))
	res.Context.Chunks = sources.chunks("Source Documents", excerpts(e.Tokenizer, question, chunkItems, full, budget), budget)
	graphTokens := min(lcaGraphRatio*float64(sources.spent()), float64(total-sources.spent()))
	share := func(w float64) int {
		return max(0, int(graphTokens*w/(hiBackgroundWeight+hiPathWeight+hiEntityWeight)))
	}
	b := newContextBuilder(e.Tokenizer)
	keptSummaries := b.entitiesClipped("Summaries", pairsFirst(summaryItems, summaryRels), share(hiBackgroundWeight), lcaSummaryWords)
	res.Context.Paths = b.paths("Relations", paths, share(hiPathWeight))
	keptSeeds := b.entities("Entities", seedItems, share(hiEntityWeight))
	res.Context.Entities = append(append(res.Context.Entities, keptSeeds...), keptSummaries...)
	b.append(sources)
	res.ContextText = b.String()
	res.Budget = b.budget(total)
	return nil
}

// pairsFirst orders the summaries so that the ends of the inter-summary relations come first,
// the heaviest relation's first (rels is sorted by weight), then the others in their order: a
// relation between two summaries says something only next to both, and a small budget keeps
// the first few summaries.
func pairsFirst(items []EntityItem, rels []graph.Relation) []EntityItem {
	at := make(map[string]int, len(items))
	for i, it := range items {
		at[it.ID] = i
	}
	out := make([]EntityItem, 0, len(items))
	taken := make([]bool, len(items))
	take := func(id string) {
		if i, ok := at[id]; ok && !taken[i] {
			taken[i] = true
			out = append(out, items[i])
		}
	}
	for _, r := range rels {
		take(r.Source)
		take(r.Target)
	}
	for i, it := range items {
		if !taken[i] {
			out = append(out, it)
		}
	}
	return out
}

// lcaRelations splits the relations of h among the entities on the paths into inter-summary
// relations and the base layer's.
func lcaRelations(h graph.Hierarchy, onPath map[string]map[string]bool, byID map[string]graph.Entity) (summaryRels, baseRels []graph.Relation) {
	for _, r := range h.Relations {
		if len(onPath[r.Source]) == 0 || len(onPath[r.Target]) == 0 {
			continue
		}
		if byID[r.Source].Layer > 0 {
			summaryRels = append(summaryRels, r)
		} else {
			baseRels = append(baseRels, r)
		}
	}
	return summaryRels, baseRels
}

// lcaChannels returns the evidence channels lca ranks its source chunks by: the lexical chunks,
// the seeds' chunks, the chunks the relations among the seeds (rels) were extracted from, the
// documents the hop from the top lexical document reaches (links: that document's, see
// lcaLexical and lcaHop), the documents about the seeds, and the documents about the entities
// the top document names among the seeds and under the groups' ancestors; and the scores of the
// documents about the seeds the question names (lcaSubjects).
func (e *Engine) lcaChannels(ctx context.Context, question string, qvec []float32, opt Options, f lcaFound, rels []graph.Relation, lx lcaLexicalFound) ([]channel, map[string]float64, error) {
	channels := []channel{{lexicalWeight, lx.chunks}}
	if len(f.seeds) == 0 || len(lx.chunks) == 0 {
		return channels, nil, nil
	}
	lc, err := e.Store.ExpandLocal(ctx, f.seeds, graph.LocalOptions{TopChunks: opt.TopK * 3})
	if err != nil {
		return nil, nil, err
	}
	channels = append(channels, channel{localWeight, rankedChunks(qvec, lc.Chunks)})
	var chunkIDs []string
	for _, r := range rels {
		for _, id := range r.ChunkIDs {
			if !slices.Contains(chunkIDs, id) {
				chunkIDs = append(chunkIDs, id)
			}
		}
	}
	if len(chunkIDs) > 0 {
		related, err := e.Store.Chunks(ctx, chunkIDs)
		if err != nil {
			return nil, nil, err
		}
		channels = append(channels, channel{lcaRelationWeight, related})
	}
	return e.lcaSubjects(ctx, question, f.seeds, f.named, lcaHop(f, lx.chunks[0].DocumentID, lx), channels)
}

// lcaHopped is where the hop from the top lexical document leads: the entities it names that
// say what the question is about in lca's terms, and the other documents naming those under
// the groups' ancestors.
type lcaHopped struct {
	// named are the seeds the top document names, in seed order, then the other entities it
	// names that lie under a group's ancestor, closest to the seeds first (lcaNear).
	named []string
	// docs are the other documents naming one of the entities under a group's ancestor, those
	// naming the most first (then by id); via maps every document linked through named to the
	// chunk of its first link.
	docs []string
	via  map[string]string
}

// lcaHop follows the document links of the top lexical document start (lx, see lcaLexical)
// through the entities it names. The question most often does not name the entity that leads
// to its second document: the first document does (docs/RETRIEVAL.md, "Why lca lost to hi").
// Of the entities the top document names, lca keeps the seeds and those under one of its groups'
// lowest common ancestors: the part of the hierarchy the question's seeds span, not every
// entity the document happens to mention.
func lcaHop(f lcaFound, start string, lx lcaLexicalFound) lcaHopped {
	var out lcaHopped
	links := lx.links
	if len(links) == 0 {
		return out
	}
	mentioned := map[string]bool{}
	// The entities named other than the seeds that another document names too (the others lead
	// nowhere), in id order (links are).
	var others []string
	for _, l := range links {
		mentioned[l.EntityID] = true
		if l.Documents > 1 && !slices.Contains(f.seeds, l.EntityID) && (len(others) == 0 || others[len(others)-1] != l.EntityID) {
			others = append(others, l.EntityID)
		}
	}
	for _, s := range f.seeds {
		if mentioned[s] {
			out.named = append(out.named, s)
		}
	}
	var near []string
	if len(others) > 0 && len(f.groups) > 0 {
		near = lcaNear(f, lx.above, others)
	}
	out.named = append(out.named, near...)
	keep := map[string]bool{}
	for _, id := range out.named {
		keep[id] = true
	}
	isNear := map[string]bool{}
	for _, id := range near {
		isNear[id] = true
	}
	count := map[string]int{}
	out.via = map[string]string{}
	for _, l := range links {
		if !keep[l.EntityID] {
			continue
		}
		if _, ok := out.via[l.DocumentID]; !ok {
			out.via[l.DocumentID] = l.ChunkID
		}
		if isNear[l.EntityID] && l.DocumentID != start {
			count[l.DocumentID]++
		}
	}
	for d := range count {
		out.docs = append(out.docs, d)
	}
	slices.SortFunc(out.docs, func(a, b string) int { return cmp.Or(cmp.Compare(count[b], count[a]), cmp.Compare(a, b)) })
	return out
}

// lcaNear returns the base-layer entities of ids that lie under one of the groups' lowest common
// ancestors (above holds the summary links above them), closest to the seeds first: by the
// layer of the lowest ancestor they share with a seed, then that seed's rank, then id.
func lcaNear(f lcaFound, above []graph.SummaryLink, ids []string) []string {
	layer := make(map[string]int, len(f.h.Entities))
	for _, en := range f.h.Entities {
		layer[en.ID] = en.Layer
	}
	seedUp, up := upward(f.h.Links), upward(above)
	seedAbove := make([]map[string]bool, len(f.seeds))
	for i, s := range f.seeds {
		seedAbove[i] = seedUp(s)
	}
	type closeness struct{ layer, seed int }
	near := map[string]closeness{}
	var out []string
	for _, id := range ids {
		a := up(id)
		if !slices.ContainsFunc(f.groups, func(g lcaGroup) bool { return g.lca != id && a[g.lca] }) {
			continue
		}
		c := closeness{math.MaxInt, len(f.seeds)}
		for y := range a {
			for i := range f.seeds {
				if y != id && seedAbove[i][y] && (layer[y] < c.layer || layer[y] == c.layer && i < c.seed) {
					c = closeness{layer[y], i}
				}
			}
		}
		near[id] = c
		out = append(out, id)
	}
	slices.SortFunc(out, func(a, b string) int {
		return cmp.Or(cmp.Compare(near[a].layer, near[b].layer), cmp.Compare(near[a].seed, near[b].seed), cmp.Compare(a, b))
	})
	return out
}

// upward returns, for the summary links (member → summary), a function giving an entity and
// every entity above it.
func upward(links []graph.SummaryLink) func(string) map[string]bool {
	parents := map[string][]string{}
	for _, l := range links {
		parents[l.Member] = append(parents[l.Member], l.Summary)
	}
	return func(x string) map[string]bool {
		seen := map[string]bool{}
		stack := []string{x}
		for len(stack) > 0 {
			y := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			if !seen[y] {
				seen[y] = true
				stack = append(stack, parents[y]...)
			}
		}
		return seen
	}
}

// lcaSubjects appends to channels the hop's channel (the documents it reaches, by the chunk of
// their first link) and two channels of the documents about entities (graph.Document.Subject:
// the entity's own article), entity by entity in order: the seeds' (lcaSubjectWeight) and those
// the top document names among the seeds and under the groups' ancestors (lcaNamedWeight). The
// seeds' chunk channel ranks chunks by how many seeds they name, so an article about one seed
// comes after those that name several of the question's setting entities; that article is most
// often the gold document lca lost (docs/RETRIEVAL.md, "Why lca lost to hi"), and the one about
// an entity the top document names is the second document of a question whose first names it.
// The candidates are the channels' documents and those the hop links to: one Documents call,
// one Chunks call for the chunks of the linked documents the channels do not hold. It returns
// too the scores of the candidates about the first named seeds (those the question names,
// lcaSeeds), as namedDocuments scores the documents the question names for hi: a document
// about a named seed is most often a gold one, unless the other candidates name it too (the
// question's setting). On HotpotQA comparison questions ("Are X and Y both film directors?")
// both gold documents are such; the seeds' channel, ranked, gave the second two thirds of the
// first's weight.
func (e *Engine) lcaSubjects(ctx context.Context, question string, seeds []string, named int, hop lcaHopped, channels []channel) ([]channel, map[string]float64, error) {
	first := map[string]graph.Chunk{}
	for _, ch := range channels {
		for _, c := range ch.chunks {
			if _, ok := first[c.DocumentID]; !ok {
				first[c.DocumentID] = c
			}
		}
	}
	ids := channelDocuments(channels)
	linked := make([]string, 0, len(hop.via))
	for d := range hop.via {
		if _, ok := first[d]; !ok {
			linked = append(linked, d)
		}
	}
	slices.Sort(linked)
	docs, err := e.Store.Documents(ctx, append(ids, linked...))
	if err != nil {
		return nil, nil, err
	}
	about := map[string][]string{} // entity id → the documents about it, by id
	for _, d := range docs {
		if s := d.Subject(); s != "" {
			id := graph.NormalizeID(s)
			about[id] = append(about[id], d.ID)
		}
	}
	for _, ds := range about {
		slices.Sort(ds)
	}
	docsAbout := func(entities []string) []string {
		var out []string
		for _, en := range entities {
			for _, d := range about[en] {
				if !slices.Contains(out, d) {
					out = append(out, d)
				}
			}
		}
		return out
	}
	seedDocs, namedDocs := docsAbout(seeds), docsAbout(hop.named)
	var read []string // the link chunks to read
	for _, d := range hop.docs {
		read = append(read, hop.via[d])
	}
	for _, d := range append(slices.Clip(seedDocs), namedDocs...) {
		if _, ok := first[d]; !ok {
			read = append(read, hop.via[d])
		}
	}
	byID := map[string]graph.Chunk{}
	if read = graph.UniqueIDs(read); len(read) > 0 {
		found, err := e.Store.Chunks(ctx, read)
		if err != nil {
			return nil, nil, err
		}
		for _, c := range found {
			byID[c.ID] = c
		}
	}
	pick := func(ds []string, linkFirst bool) []graph.Chunk {
		var out []graph.Chunk
		for _, d := range ds {
			if c, ok := first[d]; ok && !linkFirst {
				out = append(out, c)
			} else if c, ok := byID[hop.via[d]]; ok {
				out = append(out, c)
			}
		}
		return out
	}
	for _, ch := range []channel{{lcaHopWeight, pick(hop.docs, true)}, {lcaSubjectWeight, pick(seedDocs, false)}, {lcaNamedWeight, pick(namedDocs, false)}} {
		if len(ch.chunks) > 0 {
			channels = append(channels, ch)
		}
	}
	// The documents about the seeds the question names score as hi's named documents do, the
	// name's other carriers among the lexical candidates discounting it.
	var aboutNamed []graph.Document
	for _, d := range docs {
		if slices.Contains(seeds[:named], graph.NormalizeID(d.Subject())) {
			aboutNamed = append(aboutNamed, d)
		}
	}
	return channels, namedDocuments(question, aboutNamed, channels[0].chunks), nil
}

// lcaGroups finds the lowest common ancestors of the seeds (in rank order) over the summary
// links (member → summary). When no ancestor holds every seed, the seeds are grouped: the best
// seed not yet grouped goes with every other ungrouped seed under the one of its ancestors that
// holds the most of them (the lower layer, then the smaller id, on ties), and the group's
// ancestor is the lowest entity above all of its seeds. A seed without a summary is a group of
// its own, its own ancestor. Soft cluster membership makes the hierarchy a DAG, not a tree, so
// "lowest" is by layer; ties go to the smaller id.
func lcaGroups(seeds []string, links []graph.SummaryLink) []lcaGroup {
	parents := map[string][]string{}
	for _, l := range links {
		parents[l.Member] = append(parents[l.Member], l.Summary)
	}
	// up[x] maps every ancestor-or-self of x to its depth above x (0 for x itself); a summary of
	// layer l is always l - layer(x) steps up, so depth orders ancestors by layer.
	up := map[string]map[string]int{}
	var walk func(x string) map[string]int
	walk = func(x string) map[string]int {
		if a, ok := up[x]; ok {
			return a
		}
		a := map[string]int{x: 0}
		up[x] = a // links go up one layer, so there is no cycle to guard against
		for _, p := range parents[x] {
			for y, d := range walk(p) {
				if old, ok := a[y]; !ok || d+1 < old {
					a[y] = d + 1
				}
			}
		}
		return a
	}
	// lowest returns the lowest common ancestor-or-self of all of group.
	lowest := func(group []string) string {
		best, bestDepth := "", 0
		for y, d := range up[group[0]] {
			common := true
			for _, s := range group[1:] {
				if _, ok := up[s][y]; !ok {
					common = false
					break
				}
			}
			if common && (best == "" || d < bestDepth || d == bestDepth && y < best) {
				best, bestDepth = y, d
			}
		}
		return best
	}
	remaining := slices.Clone(seeds)
	for _, s := range remaining {
		walk(s)
	}
	var groups []lcaGroup
	for len(remaining) > 0 {
		first := remaining[0]
		var pick string
		pickCover, pickDepth := 0, 0
		for y, d := range up[first] {
			cover := 0
			for _, s := range remaining {
				if _, ok := up[s][y]; ok {
					cover++
				}
			}
			if cover > pickCover || cover == pickCover && (d < pickDepth || d == pickDepth && y < pick) {
				pick, pickCover, pickDepth = y, cover, d
			}
		}
		var group, rest []string
		for _, s := range remaining {
			if _, ok := up[s][pick]; ok {
				group = append(group, s)
			} else {
				rest = append(rest, s)
			}
		}
		groups = append(groups, lcaGroup{seeds: group, lca: lowest(group)})
		remaining = rest
	}
	return groups
}

// pathNodes returns the entities on the paths from each group's seeds up to its ancestor: every
// ancestor-or-self of a seed that has the group's ancestor above it (or is it), mapped to the
// ancestors of the groups whose paths it is on.
func pathNodes(groups []lcaGroup, links []graph.SummaryLink) map[string]map[string]bool {
	parents := map[string][]string{}
	for _, l := range links {
		parents[l.Member] = append(parents[l.Member], l.Summary)
	}
	out := map[string]map[string]bool{}
	for _, g := range groups {
		// below reports whether x reaches g.lca going up (memoized per group).
		memo := map[string]bool{}
		var reaches func(x string) bool
		reaches = func(x string) bool {
			if x == g.lca {
				return true
			}
			if v, ok := memo[x]; ok {
				return v
			}
			v := false
			for _, p := range parents[x] {
				if reaches(p) {
					v = true
				}
			}
			memo[x] = v
			return v
		}
		var visit func(x string)
		visit = func(x string) {
			if !reaches(x) || out[x][g.lca] {
				return
			}
			if out[x] == nil {
				out[x] = map[string]bool{}
			}
			out[x][g.lca] = true
			for _, p := range parents[x] {
				visit(p)
			}
		}
		for _, s := range g.seeds {
			visit(s)
		}
	}
	return out
}
