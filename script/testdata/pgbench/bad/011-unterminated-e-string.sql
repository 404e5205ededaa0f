SELECT E'abc\';
