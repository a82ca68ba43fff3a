package extract

import (
	"context"
	"reflect"
	"testing"
)

func TestNameSubject(t *testing.T) {
	cases := []struct {
		name, text, subject string
		want                *Entity  // the entity added; nil: nothing added
		related             []string // the names it is related to
	}{
		{"within a longer name", "Shirley Temple Black (April 23, 1928 – February 10, 2014) was an American actress.", "Shirley Temple",
			&Entity{Name: "Shirley Temple", Type: "person", Description: "Shirley Temple Black (April 23, 1928 – February 10, 2014) was an American actress."}, []string{"Shirley Temple Black", "American"}},
		{"after a sentence-initial article and a number", "The 1964 Armstrong 500 was a production car race. It was held in Bathurst.", "1964 Armstrong 500",
			&Entity{Name: "1964 Armstrong 500", Type: "other", Description: "The 1964 Armstrong 500 was a production car race."}, []string{"Armstrong"}},
		{"sentence-initial title of a work", "A Kiss for Corliss is a 1949 American comedy film.", "A Kiss for Corliss",
			&Entity{Name: "A Kiss for Corliss", Type: "other", Description: "A Kiss for Corliss is a 1949 American comedy film."}, []string{"Kiss", "Corliss", "American"}},
		{"type of the name that holds it", "The Halliburton Company is an oil field service company.", "Halliburton",
			&Entity{Name: "Halliburton", Type: "organization", Description: "The Halliburton Company is an oil field service company."}, []string{"Halliburton Company"}},
		{"punctuation kept", "Feel Good Inc. is a song by Gorillaz.", "Feel Good Inc.",
			&Entity{Name: "Feel Good Inc.", Type: "organization", Description: "Feel Good Inc. is a song by Gorillaz."}, []string{"Feel Good Inc", "Gorillaz"}},
		{"the subject's name where the text's has another id", "\"Feel Good Inc\" is a song by Gorillaz.", "Feel Good Inc.",
			&Entity{Name: "Feel Good Inc.", Type: "organization", Description: "\"Feel Good Inc\" is a song by Gorillaz."}, []string{"Feel Good Inc", "Gorillaz"}},
		{"nickname in quotes", "Tyrone Curtis \"Muggsy\" Bogues (born January 9, 1965) is a retired basketball player.", "Muggsy Bogues",
			&Entity{Name: "Muggsy Bogues", Type: "person", Description: "Tyrone Curtis \"Muggsy\" Bogues (born January 9, 1965) is a retired basketball player."}, []string{"Tyrone Curtis", "Muggsy", "Bogues"}},
		{"middle names", "Abraham Harold Maslow ( ; April 1, 1908 – June 8, 1970) was an American psychologist.", "Abraham Maslow",
			&Entity{Name: "Abraham Maslow", Type: "person", Description: "Abraham Harold Maslow ( ; April 1, 1908 – June 8, 1970) was an American psychologist."}, []string{"Abraham Harold Maslow"}},
		{"already extracted", "He met Lira Solenne in Port Avel.", "Lira Solenne", nil, nil},
		{"lower case in the text", "They played kiss and tell all night.", "Kiss and Tell", nil, nil},
		{"other separators", "Neafie, Levy & Co. built ships.", "Neafie Levy", nil, nil},
		{"too many middle names", "Alec David Edward John Muffett is an internet-security evangelist.", "Alec Muffett", nil, nil},
		{"another last name", "Abraham Harold Lincoln was there.", "Abraham Maslow", nil, nil},
		{"not named", "The treaty was signed in spring.", "Treaty of Vell", nil, nil},
		{"no subject", "Shirley Temple Black was an actress.", "", nil, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			res, err := NewOffline().Extract(context.Background(), tc.text)
			if err != nil {
				t.Fatal(err)
			}
			before := len(res.Entities)
			got := NameSubject(res, tc.text, tc.subject)
			switch {
			case tc.want == nil && len(got.Entities) != before:
				t.Errorf("NameSubject added %v, want nothing", got.Entities[before:])
			case tc.want != nil && len(got.Entities) != before+1:
				t.Errorf("NameSubject added %v, want %v", got.Entities[before:], *tc.want)
			case tc.want != nil && !reflect.DeepEqual(got.Entities[before], *tc.want):
				t.Errorf("NameSubject added %+v, want %+v", got.Entities[before], *tc.want)
			}
			// The added entity is related to the other names of its sentence.
			var related []string
			for _, r := range got.Relations[len(res.Relations):] {
				if tc.want == nil || r.Source != tc.want.Name {
					t.Errorf("relation %+v, want one from the added entity", r)
				}
				related = append(related, r.Target)
			}
			if !reflect.DeepEqual(related, tc.related) {
				t.Errorf("related to %q, want %q", related, tc.related)
			}
		})
	}
}
