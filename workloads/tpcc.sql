-- tpcc.sql: the schema and functions of the TPC-C-like workload (tpcc-*.sql).
-- Not a benchmark script: "gbench workloads load --tpcc-warehouses N" runs it after
-- dataset.sql (whose ownership check covers the schema gbench), then fills the tables
-- with gbench.tpcc_load(step, warehouses), one step a table, and vacuums them.
--
-- TPC-C-like, not TPC-C: the nine tables keep the columns the five transactions read
-- and write, with sizes near the specification's, but fewer address columns, one
-- s_dist column instead of ten, gbench's own last-name syllables, and every customer's
-- last name taken from (c_id - 1) mod 1000 (three customers per name and district).
-- docs/workloads.md lists where it departs from the specification.
--
-- Defines (all in the schema gbench, each with a "gbench dataset" comment):
--   tpcc_warehouse, tpcc_district, tpcc_customer, tpcc_history, tpcc_orders,
--   tpcc_new_order, tpcc_order_line, tpcc_item, tpcc_stock   the tables
--   gbench.tpcc_last_name(n)               the last name of number n (0..999)
--   gbench.tpcc_new_order(w, d, c, ol_cnt, rollback, items)  the new-order transaction:
--                                          its order-line loop runs on the server
--   gbench.tpcc_delivery(w, carrier)       the delivery transaction: ten districts
--   gbench.tpcc_load(step, warehouses)     empties and fills one table
-- By hand, with psql, after dataset.sql:
--   psql -v ON_ERROR_STOP=1 -f tpcc.sql -c "CALL gbench.tpcc_load('item', 1)" ... DBNAME

BEGIN;

CREATE TABLE IF NOT EXISTS gbench.tpcc_warehouse (
    w_id int PRIMARY KEY, w_name text NOT NULL, w_street_1 text, w_city text, w_state text, w_zip text,
    w_tax numeric(4,4) NOT NULL, w_ytd numeric(12,2) NOT NULL);
CREATE TABLE IF NOT EXISTS gbench.tpcc_district (
    d_w_id int, d_id int, d_name text NOT NULL, d_street_1 text, d_city text, d_state text, d_zip text,
    d_tax numeric(4,4) NOT NULL, d_ytd numeric(12,2) NOT NULL, d_next_o_id int NOT NULL,
    PRIMARY KEY (d_w_id, d_id));
CREATE TABLE IF NOT EXISTS gbench.tpcc_customer (
    c_w_id int, c_d_id int, c_id int, c_first text NOT NULL, c_middle text, c_last text NOT NULL,
    c_street_1 text, c_city text, c_state text, c_zip text, c_phone text, c_since timestamptz,
    c_credit text NOT NULL, c_credit_lim numeric(12,2), c_discount numeric(4,4) NOT NULL,
    c_balance numeric(12,2) NOT NULL, c_ytd_payment numeric(12,2) NOT NULL,
    c_payment_cnt int NOT NULL, c_delivery_cnt int NOT NULL, c_data text NOT NULL,
    PRIMARY KEY (c_w_id, c_d_id, c_id));
CREATE INDEX IF NOT EXISTS tpcc_customer_name ON gbench.tpcc_customer (c_w_id, c_d_id, c_last, c_first);
CREATE TABLE IF NOT EXISTS gbench.tpcc_history (
    h_c_id int, h_c_d_id int, h_c_w_id int, h_d_id int, h_w_id int, h_date timestamptz,
    h_amount numeric(6,2), h_data text);
CREATE TABLE IF NOT EXISTS gbench.tpcc_orders (
    o_w_id int, o_d_id int, o_id int, o_c_id int NOT NULL, o_entry_d timestamptz NOT NULL,
    o_carrier_id int, o_ol_cnt int NOT NULL, o_all_local int NOT NULL,
    PRIMARY KEY (o_w_id, o_d_id, o_id));
CREATE INDEX IF NOT EXISTS tpcc_orders_customer ON gbench.tpcc_orders (o_w_id, o_d_id, o_c_id, o_id);
CREATE TABLE IF NOT EXISTS gbench.tpcc_new_order (
    no_w_id int, no_d_id int, no_o_id int, PRIMARY KEY (no_w_id, no_d_id, no_o_id));
CREATE TABLE IF NOT EXISTS gbench.tpcc_order_line (
    ol_w_id int, ol_d_id int, ol_o_id int, ol_number int, ol_i_id int NOT NULL, ol_supply_w_id int NOT NULL,
    ol_delivery_d timestamptz, ol_quantity int NOT NULL, ol_amount numeric(6,2) NOT NULL, ol_dist_info text,
    PRIMARY KEY (ol_w_id, ol_d_id, ol_o_id, ol_number));
CREATE TABLE IF NOT EXISTS gbench.tpcc_item (
    i_id int PRIMARY KEY, i_im_id int NOT NULL, i_name text NOT NULL, i_price numeric(5,2) NOT NULL, i_data text NOT NULL);
CREATE TABLE IF NOT EXISTS gbench.tpcc_stock (
    s_w_id int, s_i_id int, s_quantity int NOT NULL, s_dist text NOT NULL, s_ytd int NOT NULL,
    s_order_cnt int NOT NULL, s_remote_cnt int NOT NULL, s_data text NOT NULL,
    PRIMARY KEY (s_w_id, s_i_id));

DO $comment$
DECLARE
    t text;
BEGIN
    FOREACH t IN ARRAY ARRAY['warehouse', 'district', 'customer', 'history', 'orders', 'new_order', 'order_line', 'item', 'stock'] LOOP
        EXECUTE format('COMMENT ON TABLE gbench.%I IS %L', 'tpcc_' || t, 'gbench dataset: a table of the TPC-C-like workload');
    END LOOP;
    FOR t IN SELECT c.relname FROM pg_catalog.pg_class AS c JOIN pg_catalog.pg_namespace AS n ON n.oid = c.relnamespace
             WHERE n.nspname = 'gbench' AND c.relkind = 'i' AND c.relname LIKE 'tpcc\_%' LOOP
        EXECUTE format('COMMENT ON INDEX gbench.%I IS %L', t, 'gbench dataset');
    END LOOP;
END
$comment$;

-- Ten syllables of gbench's own; a last name is three of them, by the digits of n.
CREATE OR REPLACE FUNCTION gbench.tpcc_last_name(n int) RETURNS text
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $$
    SELECT s[n / 100 % 10 + 1] || s[n / 10 % 10 + 1] || s[n % 10 + 1]
    FROM (SELECT '{KAL,MIRO,TEN,USTA,VOR,ELBE,NAPI,ROST,DUNE,SOLA}'::text[] AS s) AS syllables
$$;
COMMENT ON FUNCTION gbench.tpcc_last_name(int) IS 'gbench dataset: the TPC-C-like last name of a number';

-- The new-order transaction. The items come from the client (items[1..ol_cnt]);
-- they are processed in item order so that two new orders never wait on each
-- other's stock rows in a cycle. With rollback the last item is an unused id and
-- the transaction's work is undone (a subtransaction), as the specification's 1%.
-- Returns the order id, or NULL when rolled back.
CREATE OR REPLACE FUNCTION gbench.tpcc_new_order(w int, d int, c int, ol_cnt int, rollback boolean, items int[])
RETURNS int LANGUAGE plpgsql AS $$
DECLARE
    o int;
    ids int[] := items[1:ol_cnt];
    line record;
    total numeric := 0;
BEGIN
    IF rollback THEN
        ids[ol_cnt] := -1;
    END IF;
    BEGIN
        UPDATE gbench.tpcc_district SET d_next_o_id = d_next_o_id + 1
        WHERE d_w_id = w AND d_id = d RETURNING d_next_o_id - 1 INTO o;
        PERFORM w_tax FROM gbench.tpcc_warehouse WHERE w_id = w;
        PERFORM c_discount, c_last, c_credit FROM gbench.tpcc_customer WHERE c_w_id = w AND c_d_id = d AND c_id = c;
        INSERT INTO gbench.tpcc_orders VALUES (w, d, o, c, now(), NULL, ol_cnt, 1);
        INSERT INTO gbench.tpcc_new_order VALUES (w, d, o);
        FOR line IN SELECT u.i_id, u.ord FROM unnest(ids) WITH ORDINALITY AS u(i_id, ord) ORDER BY u.i_id LOOP
            DECLARE
                price numeric;
                qty int := 1 + floor(random() * 10)::int;
                dist text;
            BEGIN
                SELECT i_price INTO price FROM gbench.tpcc_item WHERE i_id = line.i_id;
                IF NOT FOUND THEN
                    RAISE EXCEPTION USING ERRCODE = 'no_data_found', MESSAGE = 'tpcc: item number is not valid';
                END IF;
                UPDATE gbench.tpcc_stock
                SET s_quantity = CASE WHEN s_quantity >= qty + 10 THEN s_quantity - qty ELSE s_quantity - qty + 91 END,
                    s_ytd = s_ytd + qty, s_order_cnt = s_order_cnt + 1
                WHERE s_w_id = w AND s_i_id = line.i_id RETURNING s_dist INTO dist;
                INSERT INTO gbench.tpcc_order_line
                VALUES (w, d, o, line.ord, line.i_id, w, NULL, qty, qty * price, dist);
                total := total + qty * price;
            END;
        END LOOP;
        RETURN o;
    EXCEPTION WHEN no_data_found THEN
        RETURN NULL;
    END;
END
$$;
COMMENT ON FUNCTION gbench.tpcc_new_order(int, int, int, int, boolean, int[]) IS 'gbench dataset: the TPC-C-like new-order transaction';

-- The delivery transaction: for each of the ten districts, the oldest new order
-- (skipped when there is none, or another delivery holds it), its order lines
-- and its customer. Returns the number of orders delivered.
CREATE OR REPLACE FUNCTION gbench.tpcc_delivery(w int, carrier int) RETURNS int
LANGUAGE plpgsql AS $$
DECLARE
    o int;
    c int;
    amount numeric;
    delivered int := 0;
BEGIN
    FOR d IN 1..10 LOOP
        SELECT no_o_id INTO o FROM gbench.tpcc_new_order
        WHERE no_w_id = w AND no_d_id = d ORDER BY no_o_id LIMIT 1 FOR UPDATE SKIP LOCKED;
        CONTINUE WHEN NOT FOUND;
        DELETE FROM gbench.tpcc_new_order WHERE no_w_id = w AND no_d_id = d AND no_o_id = o;
        UPDATE gbench.tpcc_orders SET o_carrier_id = carrier
        WHERE o_w_id = w AND o_d_id = d AND o_id = o RETURNING o_c_id INTO c;
        UPDATE gbench.tpcc_order_line SET ol_delivery_d = now()
        WHERE ol_w_id = w AND ol_d_id = d AND ol_o_id = o;
        SELECT sum(ol_amount) INTO amount FROM gbench.tpcc_order_line
        WHERE ol_w_id = w AND ol_d_id = d AND ol_o_id = o;
        UPDATE gbench.tpcc_customer SET c_balance = c_balance + coalesce(amount, 0), c_delivery_cnt = c_delivery_cnt + 1
        WHERE c_w_id = w AND c_d_id = d AND c_id = c;
        delivered := delivered + 1;
    END LOOP;
    RETURN delivered;
END
$$;
COMMENT ON FUNCTION gbench.tpcc_delivery(int, int) IS 'gbench dataset: the TPC-C-like delivery transaction';

-- One step of the load: empties one table and fills it for warehouses 1..nw,
-- server-side. The initial state is the specification's in shape: 3000
-- customers and orders per district, orders 2101..3000 undelivered (new
-- orders), 5..15 lines an order, 100000 items, a stock row per item and
-- warehouse.
CREATE OR REPLACE PROCEDURE gbench.tpcc_load(step text, nw int)
LANGUAGE plpgsql AS $$
BEGIN
    IF nw < 1 THEN
        RAISE EXCEPTION 'tpcc_load(%, %): need at least 1 warehouse', step, nw;
    END IF;
    CASE step
    WHEN 'item' THEN
        TRUNCATE gbench.tpcc_item;
        INSERT INTO gbench.tpcc_item
        SELECT i, 1 + (i * 7919) % 10000, left(md5(i::text), 14 + i % 11), 1 + (i * 4241 % 9900) / 100.0,
               CASE WHEN i % 10 = 0 THEN left(md5(i::text) || 'ORIGINAL' || md5((-i)::text), 26 + i % 25)
                    ELSE left(md5(i::text) || md5((-i)::text), 26 + i % 25) END
        FROM generate_series(1, 100000) AS i;
    WHEN 'warehouse' THEN
        TRUNCATE gbench.tpcc_warehouse;
        INSERT INTO gbench.tpcc_warehouse
        SELECT w, 'W' || w, 'street ' || w, 'city ' || w, 'ST', lpad((w % 10000)::text, 4, '0') || '11111',
               (w * 37 % 2000) / 10000.0, 300000
        FROM generate_series(1, nw) AS w;
    WHEN 'district' THEN
        TRUNCATE gbench.tpcc_district;
        INSERT INTO gbench.tpcc_district
        SELECT w, d, 'D' || w || '-' || d, 'street ' || d, 'city ' || d, 'ST', lpad(d::text, 4, '0') || '11111',
               ((w * 10 + d) * 37 % 2000) / 10000.0, 30000, 3001
        FROM generate_series(1, nw) AS w, generate_series(1, 10) AS d;
    WHEN 'customer' THEN
        TRUNCATE gbench.tpcc_customer;
        INSERT INTO gbench.tpcc_customer
        SELECT w, d, c, left(md5(c::text || d), 8 + c % 9), 'OE', gbench.tpcc_last_name((c - 1) % 1000),
               'street ' || c, 'city ' || d, 'ST', lpad((c % 10000)::text, 4, '0') || '11111',
               lpad((c * 7919)::text, 16, '0'), now(),
               CASE WHEN (c * 31 + d) % 10 = 0 THEN 'BC' ELSE 'GC' END, 50000, (c * 53 % 5000) / 10000.0,
               -10, 10, 1, 0, left(repeat(md5(c::text || '-' || d || '-' || w), 16), 300 + c % 201)
        FROM generate_series(1, nw) AS w, generate_series(1, 10) AS d, generate_series(1, 3000) AS c;
    WHEN 'history' THEN
        TRUNCATE gbench.tpcc_history;
        INSERT INTO gbench.tpcc_history
        SELECT c, d, w, d, w, now(), 10, left(md5(c::text || w), 12 + c % 13)
        FROM generate_series(1, nw) AS w, generate_series(1, 10) AS d, generate_series(1, 3000) AS c;
    WHEN 'orders' THEN
        TRUNCATE gbench.tpcc_orders;
        -- o_c_id: o -> (o - 1) * 1999 mod 3000 + 1 is a permutation of 1..3000
        -- (1999 is prime to 3000), so every customer has one order.
        INSERT INTO gbench.tpcc_orders
        SELECT w, d, o, (o - 1) * 1999 % 3000 + 1, now(),
               CASE WHEN o < 2101 THEN 1 + (o * 7 + d) % 10 END, 5 + (o * 13 + d * 7 + w) % 11, 1
        FROM generate_series(1, nw) AS w, generate_series(1, 10) AS d, generate_series(1, 3000) AS o;
    WHEN 'order_line' THEN
        TRUNCATE gbench.tpcc_order_line;
        INSERT INTO gbench.tpcc_order_line
        SELECT o.o_w_id, o.o_d_id, o.o_id, l, 1 + (o.o_id * 7919 + l * 104729 + o.o_d_id * 31) % 100000, o.o_w_id,
               CASE WHEN o.o_id < 2101 THEN o.o_entry_d END, 5,
               CASE WHEN o.o_id < 2101 THEN 0 ELSE 0.01 + ((o.o_id * 31 + l * 17) % 999999) / 100.0 END,
               left(md5(o.o_id::text || '-' || l), 24)
        FROM gbench.tpcc_orders AS o, generate_series(1, o.o_ol_cnt) AS l;
    WHEN 'new_order' THEN
        TRUNCATE gbench.tpcc_new_order;
        INSERT INTO gbench.tpcc_new_order
        SELECT w, d, o FROM generate_series(1, nw) AS w, generate_series(1, 10) AS d, generate_series(2101, 3000) AS o;
    WHEN 'stock' THEN
        TRUNCATE gbench.tpcc_stock;
        INSERT INTO gbench.tpcc_stock
        SELECT w, i, 10 + (i * 7 + w) % 91, left(md5(i::text || '-' || w), 24), 0, 0, 0,
               CASE WHEN i % 10 = 0 THEN left(md5(i::text) || 'ORIGINAL' || md5((-i)::text), 26 + i % 25)
                    ELSE left(md5(i::text) || md5((-i)::text), 26 + i % 25) END
        FROM generate_series(1, nw) AS w, generate_series(1, 100000) AS i;
    ELSE
        RAISE EXCEPTION 'tpcc_load: unknown step %', step;
    END CASE;
END
$$;
COMMENT ON PROCEDURE gbench.tpcc_load(text, int) IS 'gbench dataset: empties and fills a table of the TPC-C-like workload';

COMMIT;
