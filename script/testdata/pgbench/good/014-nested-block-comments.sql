/* a /* nested */ comment; */ SELECT 1 /* x; /* y */ z */;
