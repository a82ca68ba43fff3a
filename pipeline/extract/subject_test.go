package extract

import (
	"context"
	"reflect"
	"testing"
)

func TestNameSubject(t *testing.T) {
	cases := []struct {
		name, text, subject string
		want                *Entity // the entity added; nil: nothing added
	}{
		{"within a longer name", "Shirley Temple Black (April 23, 1928 – February 10, 2014) was an American actress.", "Shirley Temple",
			&Entity{Name: "Shirley Temple", Type: "person", Description: "Shirley Temple Black (April 23, 1928 – February 10, 2014) was an American actress."}},
		{"after a sentence-initial article and a number", "The 1964 Armstrong 500 was a production car race. It was held in Bathurst.", "1964 Armstrong 500",
			&Entity{Name: "1964 Armstrong 500", Type: "other", Description: "The 1964 Armstrong 500 was a production car race."}},
		{"sentence-initial title of a work", "A Kiss for Corliss is a 1949 American comedy film.", "A Kiss for Corliss",
			&Entity{Name: "A Kiss for Corliss", Type: "other", Description: "A Kiss for Corliss is a 1949 American comedy film."}},
		{"type of the name that holds it", "The Halliburton Company is an oil field service company.", "Halliburton",
			&Entity{Name: "Halliburton", Type: "organization", Description: "The Halliburton Company is an oil field service company."}},
		{"punctuation kept", "Feel Good Inc. is a song by Gorillaz.", "Feel Good Inc.",
			&Entity{Name: "Feel Good Inc.", Type: "organization", Description: "Feel Good Inc. is a song by Gorillaz."}},
		{"the subject's name where the text's has another id", "\"Feel Good Inc\" is a song by Gorillaz.", "Feel Good Inc.",
			&Entity{Name: "Feel Good Inc.", Type: "organization", Description: "\"Feel Good Inc\" is a song by Gorillaz."}},
		{"nickname in quotes", "Tyrone Curtis \"Muggsy\" Bogues (born January 9, 1965) is a retired basketball player.", "Muggsy Bogues",
			&Entity{Name: "Muggsy Bogues", Type: "person", Description: "Tyrone Curtis \"Muggsy\" Bogues (born January 9, 1965) is a retired basketball player."}},
		{"middle names", "Abraham Harold Maslow ( ; April 1, 1908 – June 8, 1970) was an American psychologist.", "Abraham Maslow",
			&Entity{Name: "Abraham Maslow", Type: "person", Description: "Abraham Harold Maslow ( ; April 1, 1908 – June 8, 1970) was an American psychologist."}},
		{"already extracted", "He met Lira Solenne in Port Avel.", "Lira Solenne", nil},
		{"lower case in the text", "They played kiss and tell all night.", "Kiss and Tell", nil},
		{"other separators", "Neafie, Levy & Co. built ships.", "Neafie Levy", nil},
		{"too many middle names", "Alec David Edward John Muffett is an internet-security evangelist.", "Alec Muffett", nil},
		{"another last name", "Abraham Harold Lincoln was there.", "Abraham Maslow", nil},
		{"not named", "The treaty was signed in spring.", "Treaty of Vell", nil},
		{"no subject", "Shirley Temple Black was an actress.", "", nil},
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
		})
	}
}
