\set x abc
