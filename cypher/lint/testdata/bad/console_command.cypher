// A console command (:param) is an error in a file not marked "// @browser".
// @statements many
// @param x STRING
:param x => 'a';
RETURN $x AS x;
