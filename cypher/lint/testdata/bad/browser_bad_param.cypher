// In a Browser file (// @browser), a malformed :param line is an error.
// @statements many
// @browser
// @param x STRING
:param x = 'a';
RETURN $x AS x;
