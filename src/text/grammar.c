/*
 * grammar.c — the English side of the corpus grammar: word tables and a recursive-descent
 * parser of docs/corpus.md's English, over TOK_SRC tokens (grammar.h says why it is kept
 * apart from the generator, src/corpus/corpus.c).
 *
 * A sentence is read in two steps. The lexer looks every token up once (which noun,
 * adjective, verb or name it is), folds each comma into the word before it and takes the
 * final punctuation mark off; it refuses words the grammar does not have, marks it does
 * not have, a possessive 's and over-long sentences. The parser then follows the spec:
 * the mood from the first word (be → question, do → question or negated command, a verb
 * → command, else a statement of up to three clauses joined by "and"), then subjects,
 * verbs, objects, predicates and adjuncts, checking agreement, a/an, this/these, mass
 * and count nouns, the sex of predicate nouns (a woman's takes its female form), what
 * "and" may join, and where "not", "no", "very" and commas may stand.
 *
 * "and" after an object may join a second noun phrase or start the next clause; the
 * parser takes one choice per reading (grammar_parse's reading bits), and grammar_check
 * tries the readings in turn. A failed reading records where it stopped; of several, the
 * one that read farthest is the most useful to report (it got past everything the
 * others stumbled on).
 */
#include "text/grammar.h"

#include <assert.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "base/status.h"
#include "text/tokenizer.h"

/* ---------------------------------------------------------------------------------------
 * Word tables, written from data/lexicon.tsv by a script, in the file's order, and held
 * to it entry for entry by test_grammar_lexicon_matches_tables (the script is not kept:
 * the test is what vouches for them). The sorted indices of the forms below, for the
 * lookups, were written by the same script; test_grammar_lookups_find_every_form holds
 * them to the tables.
 * ------------------------------------------------------------------------------------- */

/* FNV-1a 64 of data/lexicon.tsv as the tables were written from it. */
#define LEXICON_FNV1A64 UINT64_C(0x0e45830b4c74ee02)

const GrammarNoun GRAMMAR_NOUNS[] = {
    {"example", "examples", "Beispiel", "Beispiele", "Beispielen", NULL, NULL, NULL,
     GRAMMAR_NEUT, GRAMMAR_SEX_NONE, 0, GRAMMAR_THING},
    {"house", "houses", "Haus", "Häuser", "Häusern", NULL, NULL, NULL, GRAMMAR_NEUT,
     GRAMMAR_SEX_NONE, 0, GRAMMAR_THING},
    {"dog", "dogs", "Hund", "Hunde", "Hunden", NULL, NULL, NULL, GRAMMAR_MASC,
     GRAMMAR_SEX_NONE, 0, GRAMMAR_ANIMAL},
    {"cat", "cats", "Katze", "Katzen", "Katzen", NULL, NULL, NULL, GRAMMAR_FEM,
     GRAMMAR_SEX_NONE, 0, GRAMMAR_ANIMAL},
    {"book", "books", "Buch", "Bücher", "Büchern", NULL, NULL, NULL, GRAMMAR_NEUT,
     GRAMMAR_SEX_NONE, 0, GRAMMAR_THING},
    {"man", "men", "Mann", "Männer", "Männern", NULL, NULL, NULL, GRAMMAR_MASC,
     GRAMMAR_SEX_M, 1, GRAMMAR_PERSON},
    {"woman", "women", "Frau", "Frauen", "Frauen", NULL, NULL, NULL, GRAMMAR_FEM,
     GRAMMAR_SEX_F, 1, GRAMMAR_PERSON},
    {"child", "children", "Kind", "Kinder", "Kindern", NULL, NULL, NULL, GRAMMAR_NEUT,
     GRAMMAR_SEX_NONE, 0, GRAMMAR_PERSON},
    {"girl", "girls", "Mädchen", "Mädchen", "Mädchen", NULL, NULL, NULL, GRAMMAR_NEUT,
     GRAMMAR_SEX_F, 0, GRAMMAR_PERSON},
    {"car", "cars", "Auto", "Autos", "Autos", NULL, NULL, NULL, GRAMMAR_NEUT,
     GRAMMAR_SEX_NONE, 0, GRAMMAR_THING},
    {"apple", "apples", "Apfel", "Äpfel", "Äpfeln", NULL, NULL, NULL, GRAMMAR_MASC,
     GRAMMAR_SEX_NONE, 0, GRAMMAR_THING},
    {"table", "tables", "Tisch", "Tische", "Tischen", NULL, NULL, NULL, GRAMMAR_MASC,
     GRAMMAR_SEX_NONE, 0, GRAMMAR_THING},
    {"teacher", "teachers", "Lehrer", "Lehrer", "Lehrern", NULL, "Lehrerin", "Lehrerinnen",
     GRAMMAR_MASC, GRAMMAR_SEX_M, 0, GRAMMAR_PERSON},
    {"city", "cities", "Stadt", "Städte", "Städten", NULL, NULL, NULL, GRAMMAR_FEM,
     GRAMMAR_SEX_NONE, 0, GRAMMAR_THING},
    {"tree", "trees", "Baum", "Bäume", "Bäumen", NULL, NULL, NULL, GRAMMAR_MASC,
     GRAMMAR_SEX_NONE, 0, GRAMMAR_THING},
    {"letter", "letters", "Brief", "Briefe", "Briefen", NULL, NULL, NULL, GRAMMAR_MASC,
     GRAMMAR_SEX_NONE, 0, GRAMMAR_THING},
    {"garden", "gardens", "Garten", "Gärten", "Gärten", NULL, NULL, NULL, GRAMMAR_MASC,
     GRAMMAR_SEX_NONE, 0, GRAMMAR_THING},
    {"school", "schools", "Schule", "Schulen", "Schulen", NULL, NULL, NULL, GRAMMAR_FEM,
     GRAMMAR_SEX_NONE, 0, GRAMMAR_THING},
    {"bread", NULL, "Brot", NULL, NULL, NULL, NULL, NULL, GRAMMAR_NEUT, GRAMMAR_SEX_NONE,
     0, GRAMMAR_THING},
    {"friend", "friends", "Freund", "Freunde", "Freunden", NULL, "Freundin", "Freundinnen",
     GRAMMAR_MASC, GRAMMAR_SEX_M, 0, GRAMMAR_PERSON},
    {"street", "streets", "Straße", "Straßen", "Straßen", NULL, NULL, NULL, GRAMMAR_FEM,
     GRAMMAR_SEX_NONE, 0, GRAMMAR_THING},
    {"door", "doors", "Tür", "Türen", "Türen", NULL, NULL, NULL, GRAMMAR_FEM,
     GRAMMAR_SEX_NONE, 0, GRAMMAR_THING},
    {"boy", "boys", "Junge", "Jungen", "Jungen", "Jungen", NULL, NULL, GRAMMAR_MASC,
     GRAMMAR_SEX_M, 0, GRAMMAR_PERSON},
    {"baby", "babies", "Baby", "Babys", "Babys", NULL, NULL, NULL, GRAMMAR_NEUT,
     GRAMMAR_SEX_NONE, 0, GRAMMAR_PERSON},
    {"person", "people", "Mensch", "Menschen", "Menschen", "Menschen", NULL, NULL,
     GRAMMAR_MASC, GRAMMAR_SEX_NONE, 1, GRAMMAR_PERSON},
    {"brother", "brothers", "Bruder", "Brüder", "Brüdern", NULL, NULL, NULL, GRAMMAR_MASC,
     GRAMMAR_SEX_M, 0, GRAMMAR_PERSON},
    {"sister", "sisters", "Schwester", "Schwestern", "Schwestern", NULL, NULL, NULL,
     GRAMMAR_FEM, GRAMMAR_SEX_F, 0, GRAMMAR_PERSON},
    {"mother", "mothers", "Mutter", "Mütter", "Müttern", NULL, NULL, NULL, GRAMMAR_FEM,
     GRAMMAR_SEX_F, 0, GRAMMAR_PERSON},
    {"father", "fathers", "Vater", "Väter", "Vätern", NULL, NULL, NULL, GRAMMAR_MASC,
     GRAMMAR_SEX_M, 0, GRAMMAR_PERSON},
    {"son", "sons", "Sohn", "Söhne", "Söhnen", NULL, NULL, NULL, GRAMMAR_MASC,
     GRAMMAR_SEX_M, 0, GRAMMAR_PERSON},
    {"daughter", "daughters", "Tochter", "Töchter", "Töchtern", NULL, NULL, NULL,
     GRAMMAR_FEM, GRAMMAR_SEX_F, 0, GRAMMAR_PERSON},
    {"grandmother", "grandmothers", "Großmutter", "Großmütter", "Großmüttern", NULL, NULL,
     NULL, GRAMMAR_FEM, GRAMMAR_SEX_F, 0, GRAMMAR_PERSON},
    {"grandfather", "grandfathers", "Großvater", "Großväter", "Großvätern", NULL, NULL,
     NULL, GRAMMAR_MASC, GRAMMAR_SEX_M, 0, GRAMMAR_PERSON},
    {"uncle", "uncles", "Onkel", "Onkel", "Onkeln", NULL, NULL, NULL, GRAMMAR_MASC,
     GRAMMAR_SEX_M, 0, GRAMMAR_PERSON},
    {"aunt", "aunts", "Tante", "Tanten", "Tanten", NULL, NULL, NULL, GRAMMAR_FEM,
     GRAMMAR_SEX_F, 0, GRAMMAR_PERSON},
    {"lady", "ladies", "Dame", "Damen", "Damen", NULL, NULL, NULL, GRAMMAR_FEM,
     GRAMMAR_SEX_F, 1, GRAMMAR_PERSON},
    {"gentleman", "gentlemen", "Herr", "Herren", "Herren", "Herrn", NULL, NULL,
     GRAMMAR_MASC, GRAMMAR_SEX_M, 1, GRAMMAR_PERSON},
    {"student", "students", "Student", "Studenten", "Studenten", "Studenten", "Studentin",
     "Studentinnen", GRAMMAR_MASC, GRAMMAR_SEX_M, 0, GRAMMAR_PERSON},
    {"pupil", "pupils", "Schüler", "Schüler", "Schülern", NULL, "Schülerin", "Schülerinnen",
     GRAMMAR_MASC, GRAMMAR_SEX_M, 0, GRAMMAR_PERSON},
    {"doctor", "doctors", "Arzt", "Ärzte", "Ärzten", NULL, "Ärztin", "Ärztinnen",
     GRAMMAR_MASC, GRAMMAR_SEX_M, 0, GRAMMAR_PERSON},
    {"neighbor", "neighbors", "Nachbar", "Nachbarn", "Nachbarn", "Nachbarn", "Nachbarin",
     "Nachbarinnen", GRAMMAR_MASC, GRAMMAR_SEX_M, 0, GRAMMAR_PERSON},
    {"boss", "bosses", "Chef", "Chefs", "Chefs", NULL, "Chefin", "Chefinnen", GRAMMAR_MASC,
     GRAMMAR_SEX_M, 0, GRAMMAR_PERSON},
    {"colleague", "colleagues", "Kollege", "Kollegen", "Kollegen", "Kollegen", "Kollegin",
     "Kolleginnen", GRAMMAR_MASC, GRAMMAR_SEX_M, 0, GRAMMAR_PERSON},
    {"singer", "singers", "Sänger", "Sänger", "Sängern", NULL, "Sängerin", "Sängerinnen",
     GRAMMAR_MASC, GRAMMAR_SEX_M, 0, GRAMMAR_PERSON},
    {"driver", "drivers", "Fahrer", "Fahrer", "Fahrern", NULL, "Fahrerin", "Fahrerinnen",
     GRAMMAR_MASC, GRAMMAR_SEX_M, 0, GRAMMAR_PERSON},
    {"farmer", "farmers", "Bauer", "Bauern", "Bauern", "Bauern", "Bäuerin", "Bäuerinnen",
     GRAMMAR_MASC, GRAMMAR_SEX_M, 0, GRAMMAR_PERSON},
    {"writer", "writers", "Schriftsteller", "Schriftsteller", "Schriftstellern", NULL,
     "Schriftstellerin", "Schriftstellerinnen", GRAMMAR_MASC, GRAMMAR_SEX_M, 0, GRAMMAR_PERSON},
    {"baker", "bakers", "Bäcker", "Bäcker", "Bäckern", NULL, "Bäckerin", "Bäckerinnen",
     GRAMMAR_MASC, GRAMMAR_SEX_M, 0, GRAMMAR_PERSON},
    {"waiter", "waiters", "Kellner", "Kellner", "Kellnern", NULL, "Kellnerin",
     "Kellnerinnen", GRAMMAR_MASC, GRAMMAR_SEX_M, 0, GRAMMAR_PERSON},
    {"actor", "actors", "Schauspieler", "Schauspieler", "Schauspielern", NULL,
     "Schauspielerin", "Schauspielerinnen", GRAMMAR_MASC, GRAMMAR_SEX_M, 0, GRAMMAR_PERSON},
    {"artist", "artists", "Künstler", "Künstler", "Künstlern", NULL, "Künstlerin",
     "Künstlerinnen", GRAMMAR_MASC, GRAMMAR_SEX_M, 0, GRAMMAR_PERSON},
    {"player", "players", "Spieler", "Spieler", "Spielern", NULL, "Spielerin",
     "Spielerinnen", GRAMMAR_MASC, GRAMMAR_SEX_M, 0, GRAMMAR_PERSON},
    {"dancer", "dancers", "Tänzer", "Tänzer", "Tänzern", NULL, "Tänzerin", "Tänzerinnen",
     GRAMMAR_MASC, GRAMMAR_SEX_M, 0, GRAMMAR_PERSON},
    {"customer", "customers", "Kunde", "Kunden", "Kunden", "Kunden", "Kundin", "Kundinnen",
     GRAMMAR_MASC, GRAMMAR_SEX_M, 0, GRAMMAR_PERSON},
    {"tourist", "tourists", "Tourist", "Touristen", "Touristen", "Touristen", "Touristin",
     "Touristinnen", GRAMMAR_MASC, GRAMMAR_SEX_M, 0, GRAMMAR_PERSON},
    {"pilot", "pilots", "Pilot", "Piloten", "Piloten", "Piloten", "Pilotin", "Pilotinnen",
     GRAMMAR_MASC, GRAMMAR_SEX_M, 0, GRAMMAR_PERSON},
    {"soldier", "soldiers", "Soldat", "Soldaten", "Soldaten", "Soldaten", "Soldatin",
     "Soldatinnen", GRAMMAR_MASC, GRAMMAR_SEX_M, 0, GRAMMAR_PERSON},
    {"president", "presidents", "Präsident", "Präsidenten", "Präsidenten", "Präsidenten",
     "Präsidentin", "Präsidentinnen", GRAMMAR_MASC, GRAMMAR_SEX_M, 0, GRAMMAR_PERSON},
    {"journalist", "journalists", "Journalist", "Journalisten", "Journalisten",
     "Journalisten", "Journalistin", "Journalistinnen", GRAMMAR_MASC, GRAMMAR_SEX_M, 0, GRAMMAR_PERSON},
    {"architect", "architects", "Architekt", "Architekten", "Architekten", "Architekten",
     "Architektin", "Architektinnen", GRAMMAR_MASC, GRAMMAR_SEX_M, 0, GRAMMAR_PERSON},
    {"lawyer", "lawyers", "Anwalt", "Anwälte", "Anwälten", NULL, "Anwältin", "Anwältinnen",
     GRAMMAR_MASC, GRAMMAR_SEX_M, 0, GRAMMAR_PERSON},
    {"guest", "guests", "Gast", "Gäste", "Gästen", NULL, NULL, NULL, GRAMMAR_MASC,
     GRAMMAR_SEX_NONE, 0, GRAMMAR_PERSON},
    {"king", "kings", "König", "Könige", "Königen", NULL, NULL, NULL, GRAMMAR_MASC,
     GRAMMAR_SEX_M, 0, GRAMMAR_PERSON},
    {"queen", "queens", "Königin", "Königinnen", "Königinnen", NULL, NULL, NULL,
     GRAMMAR_FEM, GRAMMAR_SEX_F, 0, GRAMMAR_PERSON},
    {"horse", "horses", "Pferd", "Pferde", "Pferden", NULL, NULL, NULL, GRAMMAR_NEUT,
     GRAMMAR_SEX_NONE, 0, GRAMMAR_ANIMAL},
    {"cow", "cows", "Kuh", "Kühe", "Kühen", NULL, NULL, NULL, GRAMMAR_FEM, GRAMMAR_SEX_NONE,
     0, GRAMMAR_ANIMAL},
    {"pig", "pigs", "Schwein", "Schweine", "Schweinen", NULL, NULL, NULL, GRAMMAR_NEUT,
     GRAMMAR_SEX_NONE, 0, GRAMMAR_ANIMAL},
    {"goat", "goats", "Ziege", "Ziegen", "Ziegen", NULL, NULL, NULL, GRAMMAR_FEM,
     GRAMMAR_SEX_NONE, 0, GRAMMAR_ANIMAL},
    {"chicken", "chickens", "Huhn", "Hühner", "Hühnern", NULL, NULL, NULL, GRAMMAR_NEUT,
     GRAMMAR_SEX_NONE, 0, GRAMMAR_ANIMAL},
    {"bird", "birds", "Vogel", "Vögel", "Vögeln", NULL, NULL, NULL, GRAMMAR_MASC,
     GRAMMAR_SEX_NONE, 0, GRAMMAR_ANIMAL},
    {"mouse", "mice", "Maus", "Mäuse", "Mäusen", NULL, NULL, NULL, GRAMMAR_FEM,
     GRAMMAR_SEX_NONE, 0, GRAMMAR_ANIMAL},
    {"rabbit", "rabbits", "Kaninchen", "Kaninchen", "Kaninchen", NULL, NULL, NULL,
     GRAMMAR_NEUT, GRAMMAR_SEX_NONE, 0, GRAMMAR_ANIMAL},
    {"duck", "ducks", "Ente", "Enten", "Enten", NULL, NULL, NULL, GRAMMAR_FEM,
     GRAMMAR_SEX_NONE, 0, GRAMMAR_ANIMAL},
    {"lion", "lions", "Löwe", "Löwen", "Löwen", "Löwen", NULL, NULL, GRAMMAR_MASC,
     GRAMMAR_SEX_NONE, 0, GRAMMAR_ANIMAL},
    {"tiger", "tigers", "Tiger", "Tiger", "Tigern", NULL, NULL, NULL, GRAMMAR_MASC,
     GRAMMAR_SEX_NONE, 0, GRAMMAR_ANIMAL},
    {"elephant", "elephants", "Elefant", "Elefanten", "Elefanten", "Elefanten", NULL, NULL,
     GRAMMAR_MASC, GRAMMAR_SEX_NONE, 0, GRAMMAR_ANIMAL},
    {"monkey", "monkeys", "Affe", "Affen", "Affen", "Affen", NULL, NULL, GRAMMAR_MASC,
     GRAMMAR_SEX_NONE, 0, GRAMMAR_ANIMAL},
    {"bear", "bears", "Bär", "Bären", "Bären", "Bären", NULL, NULL, GRAMMAR_MASC,
     GRAMMAR_SEX_NONE, 0, GRAMMAR_ANIMAL},
    {"wolf", "wolves", "Wolf", "Wölfe", "Wölfen", NULL, NULL, NULL, GRAMMAR_MASC,
     GRAMMAR_SEX_NONE, 0, GRAMMAR_ANIMAL},
    {"fox", "foxes", "Fuchs", "Füchse", "Füchsen", NULL, NULL, NULL, GRAMMAR_MASC,
     GRAMMAR_SEX_NONE, 0, GRAMMAR_ANIMAL},
    {"frog", "frogs", "Frosch", "Frösche", "Fröschen", NULL, NULL, NULL, GRAMMAR_MASC,
     GRAMMAR_SEX_NONE, 0, GRAMMAR_ANIMAL},
    {"snake", "snakes", "Schlange", "Schlangen", "Schlangen", NULL, NULL, NULL, GRAMMAR_FEM,
     GRAMMAR_SEX_NONE, 0, GRAMMAR_ANIMAL},
    {"spider", "spiders", "Spinne", "Spinnen", "Spinnen", NULL, NULL, NULL, GRAMMAR_FEM,
     GRAMMAR_SEX_NONE, 0, GRAMMAR_ANIMAL},
    {"bee", "bees", "Biene", "Bienen", "Bienen", NULL, NULL, NULL, GRAMMAR_FEM,
     GRAMMAR_SEX_NONE, 0, GRAMMAR_ANIMAL},
    {"butterfly", "butterflies", "Schmetterling", "Schmetterlinge", "Schmetterlingen", NULL,
     NULL, NULL, GRAMMAR_MASC, GRAMMAR_SEX_NONE, 0, GRAMMAR_ANIMAL},
    {"donkey", "donkeys", "Esel", "Esel", "Eseln", NULL, NULL, NULL, GRAMMAR_MASC,
     GRAMMAR_SEX_NONE, 0, GRAMMAR_ANIMAL},
    {"giraffe", "giraffes", "Giraffe", "Giraffen", "Giraffen", NULL, NULL, NULL,
     GRAMMAR_FEM, GRAMMAR_SEX_NONE, 0, GRAMMAR_ANIMAL},
    {"zebra", "zebras", "Zebra", "Zebras", "Zebras", NULL, NULL, NULL, GRAMMAR_NEUT,
     GRAMMAR_SEX_NONE, 0, GRAMMAR_ANIMAL},
    {"penguin", "penguins", "Pinguin", "Pinguine", "Pinguinen", NULL, NULL, NULL,
     GRAMMAR_MASC, GRAMMAR_SEX_NONE, 0, GRAMMAR_ANIMAL},
    {"owl", "owls", "Eule", "Eulen", "Eulen", NULL, NULL, NULL, GRAMMAR_FEM,
     GRAMMAR_SEX_NONE, 0, GRAMMAR_ANIMAL},
    {"turtle", "turtles", "Schildkröte", "Schildkröten", "Schildkröten", NULL, NULL, NULL,
     GRAMMAR_FEM, GRAMMAR_SEX_NONE, 0, GRAMMAR_ANIMAL},
    {"puppy", "puppies", "Welpe", "Welpen", "Welpen", "Welpen", NULL, NULL, GRAMMAR_MASC,
     GRAMMAR_SEX_NONE, 0, GRAMMAR_ANIMAL},
    {"kitten", "kittens", "Kätzchen", "Kätzchen", "Kätzchen", NULL, NULL, NULL,
     GRAMMAR_NEUT, GRAMMAR_SEX_NONE, 0, GRAMMAR_ANIMAL},
    {"animal", "animals", "Tier", "Tiere", "Tieren", NULL, NULL, NULL, GRAMMAR_NEUT,
     GRAMMAR_SEX_NONE, 0, GRAMMAR_ANIMAL},
    {"banana", "bananas", "Banane", "Bananen", "Bananen", NULL, NULL, NULL, GRAMMAR_FEM,
     GRAMMAR_SEX_NONE, 0, GRAMMAR_THING},
    {"pear", "pears", "Birne", "Birnen", "Birnen", NULL, NULL, NULL, GRAMMAR_FEM,
     GRAMMAR_SEX_NONE, 0, GRAMMAR_THING},
    {"lemon", "lemons", "Zitrone", "Zitronen", "Zitronen", NULL, NULL, NULL, GRAMMAR_FEM,
     GRAMMAR_SEX_NONE, 0, GRAMMAR_THING},
    {"strawberry", "strawberries", "Erdbeere", "Erdbeeren", "Erdbeeren", NULL, NULL, NULL,
     GRAMMAR_FEM, GRAMMAR_SEX_NONE, 0, GRAMMAR_THING},
    {"cherry", "cherries", "Kirsche", "Kirschen", "Kirschen", NULL, NULL, NULL, GRAMMAR_FEM,
     GRAMMAR_SEX_NONE, 0, GRAMMAR_THING},
    {"tomato", "tomatoes", "Tomate", "Tomaten", "Tomaten", NULL, NULL, NULL, GRAMMAR_FEM,
     GRAMMAR_SEX_NONE, 0, GRAMMAR_THING},
    {"potato", "potatoes", "Kartoffel", "Kartoffeln", "Kartoffeln", NULL, NULL, NULL,
     GRAMMAR_FEM, GRAMMAR_SEX_NONE, 0, GRAMMAR_THING},
    {"carrot", "carrots", "Karotte", "Karotten", "Karotten", NULL, NULL, NULL, GRAMMAR_FEM,
     GRAMMAR_SEX_NONE, 0, GRAMMAR_THING},
    {"onion", "onions", "Zwiebel", "Zwiebeln", "Zwiebeln", NULL, NULL, NULL, GRAMMAR_FEM,
     GRAMMAR_SEX_NONE, 0, GRAMMAR_THING},
    {"egg", "eggs", "Ei", "Eier", "Eiern", NULL, NULL, NULL, GRAMMAR_NEUT, GRAMMAR_SEX_NONE,
     0, GRAMMAR_THING},
    {"cake", "cakes", "Kuchen", "Kuchen", "Kuchen", NULL, NULL, NULL, GRAMMAR_MASC,
     GRAMMAR_SEX_NONE, 0, GRAMMAR_THING},
    {"cookie", "cookies", "Keks", "Kekse", "Keksen", NULL, NULL, NULL, GRAMMAR_MASC,
     GRAMMAR_SEX_NONE, 0, GRAMMAR_THING},
    {"soup", "soups", "Suppe", "Suppen", "Suppen", NULL, NULL, NULL, GRAMMAR_FEM,
     GRAMMAR_SEX_NONE, 0, GRAMMAR_THING},
    {"salad", "salads", "Salat", "Salate", "Salaten", NULL, NULL, NULL, GRAMMAR_MASC,
     GRAMMAR_SEX_NONE, 0, GRAMMAR_THING},
    {"sausage", "sausages", "Wurst", "Würste", "Würsten", NULL, NULL, NULL, GRAMMAR_FEM,
     GRAMMAR_SEX_NONE, 0, GRAMMAR_THING},
    {"nut", "nuts", "Nuss", "Nüsse", "Nüssen", NULL, NULL, NULL, GRAMMAR_FEM,
     GRAMMAR_SEX_NONE, 0, GRAMMAR_THING},
    {"cheese", NULL, "Käse", NULL, NULL, NULL, NULL, NULL, GRAMMAR_MASC, GRAMMAR_SEX_NONE,
     0, GRAMMAR_THING},
    {"meat", NULL, "Fleisch", NULL, NULL, NULL, NULL, NULL, GRAMMAR_NEUT, GRAMMAR_SEX_NONE,
     0, GRAMMAR_THING},
    {"rice", NULL, "Reis", NULL, NULL, NULL, NULL, NULL, GRAMMAR_MASC, GRAMMAR_SEX_NONE, 0, GRAMMAR_THING},
    {"butter", NULL, "Butter", NULL, NULL, NULL, NULL, NULL, GRAMMAR_FEM, GRAMMAR_SEX_NONE,
     0, GRAMMAR_THING},
    {"sugar", NULL, "Zucker", NULL, NULL, NULL, NULL, NULL, GRAMMAR_MASC, GRAMMAR_SEX_NONE,
     0, GRAMMAR_THING},
    {"salt", NULL, "Salz", NULL, NULL, NULL, NULL, NULL, GRAMMAR_NEUT, GRAMMAR_SEX_NONE, 0, GRAMMAR_THING},
    {"chocolate", NULL, "Schokolade", NULL, NULL, NULL, NULL, NULL, GRAMMAR_FEM,
     GRAMMAR_SEX_NONE, 0, GRAMMAR_THING},
    {"honey", NULL, "Honig", NULL, NULL, NULL, NULL, NULL, GRAMMAR_MASC, GRAMMAR_SEX_NONE,
     0, GRAMMAR_THING},
    {"fruit", NULL, "Obst", NULL, NULL, NULL, NULL, NULL, GRAMMAR_NEUT, GRAMMAR_SEX_NONE,
     0, GRAMMAR_THING},
    {"water", NULL, "Wasser", NULL, NULL, NULL, NULL, NULL, GRAMMAR_NEUT, GRAMMAR_SEX_NONE,
     0, GRAMMAR_THING},
    {"milk", NULL, "Milch", NULL, NULL, NULL, NULL, NULL, GRAMMAR_FEM, GRAMMAR_SEX_NONE, 0, GRAMMAR_THING},
    {"coffee", NULL, "Kaffee", NULL, NULL, NULL, NULL, NULL, GRAMMAR_MASC, GRAMMAR_SEX_NONE,
     0, GRAMMAR_THING},
    {"tea", NULL, "Tee", NULL, NULL, NULL, NULL, NULL, GRAMMAR_MASC, GRAMMAR_SEX_NONE, 0, GRAMMAR_THING},
    {"juice", NULL, "Saft", NULL, NULL, NULL, NULL, NULL, GRAMMAR_MASC, GRAMMAR_SEX_NONE,
     0, GRAMMAR_THING},
    {"beer", NULL, "Bier", NULL, NULL, NULL, NULL, NULL, GRAMMAR_NEUT, GRAMMAR_SEX_NONE, 0, GRAMMAR_THING},
    {"wine", NULL, "Wein", NULL, NULL, NULL, NULL, NULL, GRAMMAR_MASC, GRAMMAR_SEX_NONE, 0, GRAMMAR_THING},
    {"lemonade", NULL, "Limonade", NULL, NULL, NULL, NULL, NULL, GRAMMAR_FEM,
     GRAMMAR_SEX_NONE, 0, GRAMMAR_THING},
    {"chair", "chairs", "Stuhl", "Stühle", "Stühlen", NULL, NULL, NULL, GRAMMAR_MASC,
     GRAMMAR_SEX_NONE, 0, GRAMMAR_THING},
    {"bed", "beds", "Bett", "Betten", "Betten", NULL, NULL, NULL, GRAMMAR_NEUT,
     GRAMMAR_SEX_NONE, 0, GRAMMAR_THING},
    {"window", "windows", "Fenster", "Fenster", "Fenstern", NULL, NULL, NULL, GRAMMAR_NEUT,
     GRAMMAR_SEX_NONE, 0, GRAMMAR_THING},
    {"lamp", "lamps", "Lampe", "Lampen", "Lampen", NULL, NULL, NULL, GRAMMAR_FEM,
     GRAMMAR_SEX_NONE, 0, GRAMMAR_THING},
    {"sofa", "sofas", "Sofa", "Sofas", "Sofas", NULL, NULL, NULL, GRAMMAR_NEUT,
     GRAMMAR_SEX_NONE, 0, GRAMMAR_THING},
    {"cupboard", "cupboards", "Schrank", "Schränke", "Schränken", NULL, NULL, NULL,
     GRAMMAR_MASC, GRAMMAR_SEX_NONE, 0, GRAMMAR_THING},
    {"clock", "clocks", "Uhr", "Uhren", "Uhren", NULL, NULL, NULL, GRAMMAR_FEM,
     GRAMMAR_SEX_NONE, 0, GRAMMAR_THING},
    {"box", "boxes", "Kiste", "Kisten", "Kisten", NULL, NULL, NULL, GRAMMAR_FEM,
     GRAMMAR_SEX_NONE, 0, GRAMMAR_THING},
    {"bag", "bags", "Tasche", "Taschen", "Taschen", NULL, NULL, NULL, GRAMMAR_FEM,
     GRAMMAR_SEX_NONE, 0, GRAMMAR_THING},
    {"bottle", "bottles", "Flasche", "Flaschen", "Flaschen", NULL, NULL, NULL, GRAMMAR_FEM,
     GRAMMAR_SEX_NONE, 0, GRAMMAR_THING},
    {"cup", "cups", "Tasse", "Tassen", "Tassen", NULL, NULL, NULL, GRAMMAR_FEM,
     GRAMMAR_SEX_NONE, 0, GRAMMAR_THING},
    {"plate", "plates", "Teller", "Teller", "Tellern", NULL, NULL, NULL, GRAMMAR_MASC,
     GRAMMAR_SEX_NONE, 0, GRAMMAR_THING},
    {"knife", "knives", "Messer", "Messer", "Messern", NULL, NULL, NULL, GRAMMAR_NEUT,
     GRAMMAR_SEX_NONE, 0, GRAMMAR_THING},
    {"fork", "forks", "Gabel", "Gabeln", "Gabeln", NULL, NULL, NULL, GRAMMAR_FEM,
     GRAMMAR_SEX_NONE, 0, GRAMMAR_THING},
    {"spoon", "spoons", "Löffel", "Löffel", "Löffeln", NULL, NULL, NULL, GRAMMAR_MASC,
     GRAMMAR_SEX_NONE, 0, GRAMMAR_THING},
    {"pen", "pens", "Stift", "Stifte", "Stiften", NULL, NULL, NULL, GRAMMAR_MASC,
     GRAMMAR_SEX_NONE, 0, GRAMMAR_THING},
    {"pencil", "pencils", "Bleistift", "Bleistifte", "Bleistiften", NULL, NULL, NULL,
     GRAMMAR_MASC, GRAMMAR_SEX_NONE, 0, GRAMMAR_THING},
    {"picture", "pictures", "Bild", "Bilder", "Bildern", NULL, NULL, NULL, GRAMMAR_NEUT,
     GRAMMAR_SEX_NONE, 0, GRAMMAR_THING},
    {"photo", "photos", "Foto", "Fotos", "Fotos", NULL, NULL, NULL, GRAMMAR_NEUT,
     GRAMMAR_SEX_NONE, 0, GRAMMAR_THING},
    {"phone", "phones", "Telefon", "Telefone", "Telefonen", NULL, NULL, NULL, GRAMMAR_NEUT,
     GRAMMAR_SEX_NONE, 0, GRAMMAR_THING},
    {"computer", "computers", "Computer", "Computer", "Computern", NULL, NULL, NULL,
     GRAMMAR_MASC, GRAMMAR_SEX_NONE, 0, GRAMMAR_THING},
    {"key", "keys", "Schlüssel", "Schlüssel", "Schlüsseln", NULL, NULL, NULL, GRAMMAR_MASC,
     GRAMMAR_SEX_NONE, 0, GRAMMAR_THING},
    {"ball", "balls", "Ball", "Bälle", "Bällen", NULL, NULL, NULL, GRAMMAR_MASC,
     GRAMMAR_SEX_NONE, 0, GRAMMAR_THING},
    {"toy", "toys", "Spielzeug", "Spielzeuge", "Spielzeugen", NULL, NULL, NULL,
     GRAMMAR_NEUT, GRAMMAR_SEX_NONE, 0, GRAMMAR_THING},
    {"newspaper", "newspapers", "Zeitung", "Zeitungen", "Zeitungen", NULL, NULL, NULL,
     GRAMMAR_FEM, GRAMMAR_SEX_NONE, 0, GRAMMAR_THING},
    {"magazine", "magazines", "Zeitschrift", "Zeitschriften", "Zeitschriften", NULL, NULL,
     NULL, GRAMMAR_FEM, GRAMMAR_SEX_NONE, 0, GRAMMAR_THING},
    {"map", "maps", "Karte", "Karten", "Karten", NULL, NULL, NULL, GRAMMAR_FEM,
     GRAMMAR_SEX_NONE, 0, GRAMMAR_THING},
    {"ticket", "tickets", "Ticket", "Tickets", "Tickets", NULL, NULL, NULL, GRAMMAR_NEUT,
     GRAMMAR_SEX_NONE, 0, GRAMMAR_THING},
    {"umbrella", "umbrellas", "Regenschirm", "Regenschirme", "Regenschirmen", NULL, NULL,
     NULL, GRAMMAR_MASC, GRAMMAR_SEX_NONE, 0, GRAMMAR_THING},
    {"towel", "towels", "Handtuch", "Handtücher", "Handtüchern", NULL, NULL, NULL,
     GRAMMAR_NEUT, GRAMMAR_SEX_NONE, 0, GRAMMAR_THING},
    {"mirror", "mirrors", "Spiegel", "Spiegel", "Spiegeln", NULL, NULL, NULL, GRAMMAR_MASC,
     GRAMMAR_SEX_NONE, 0, GRAMMAR_THING},
    {"pillow", "pillows", "Kissen", "Kissen", "Kissen", NULL, NULL, NULL, GRAMMAR_NEUT,
     GRAMMAR_SEX_NONE, 0, GRAMMAR_THING},
    {"blanket", "blankets", "Decke", "Decken", "Decken", NULL, NULL, NULL, GRAMMAR_FEM,
     GRAMMAR_SEX_NONE, 0, GRAMMAR_THING},
    {"candle", "candles", "Kerze", "Kerzen", "Kerzen", NULL, NULL, NULL, GRAMMAR_FEM,
     GRAMMAR_SEX_NONE, 0, GRAMMAR_THING},
    {"flower", "flowers", "Blume", "Blumen", "Blumen", NULL, NULL, NULL, GRAMMAR_FEM,
     GRAMMAR_SEX_NONE, 0, GRAMMAR_THING},
    {"gift", "gifts", "Geschenk", "Geschenke", "Geschenken", NULL, NULL, NULL, GRAMMAR_NEUT,
     GRAMMAR_SEX_NONE, 0, GRAMMAR_THING},
    {"stone", "stones", "Stein", "Steine", "Steinen", NULL, NULL, NULL, GRAMMAR_MASC,
     GRAMMAR_SEX_NONE, 0, GRAMMAR_THING},
    {"shirt", "shirts", "Hemd", "Hemden", "Hemden", NULL, NULL, NULL, GRAMMAR_NEUT,
     GRAMMAR_SEX_NONE, 0, GRAMMAR_THING},
    {"dress", "dresses", "Kleid", "Kleider", "Kleidern", NULL, NULL, NULL, GRAMMAR_NEUT,
     GRAMMAR_SEX_NONE, 0, GRAMMAR_THING},
    {"shoe", "shoes", "Schuh", "Schuhe", "Schuhen", NULL, NULL, NULL, GRAMMAR_MASC,
     GRAMMAR_SEX_NONE, 0, GRAMMAR_THING},
    {"hat", "hats", "Hut", "Hüte", "Hüten", NULL, NULL, NULL, GRAMMAR_MASC,
     GRAMMAR_SEX_NONE, 0, GRAMMAR_THING},
    {"coat", "coats", "Mantel", "Mäntel", "Mänteln", NULL, NULL, NULL, GRAMMAR_MASC,
     GRAMMAR_SEX_NONE, 0, GRAMMAR_THING},
    {"jacket", "jackets", "Jacke", "Jacken", "Jacken", NULL, NULL, NULL, GRAMMAR_FEM,
     GRAMMAR_SEX_NONE, 0, GRAMMAR_THING},
    {"sock", "socks", "Socke", "Socken", "Socken", NULL, NULL, NULL, GRAMMAR_FEM,
     GRAMMAR_SEX_NONE, 0, GRAMMAR_THING},
    {"skirt", "skirts", "Rock", "Röcke", "Röcken", NULL, NULL, NULL, GRAMMAR_MASC,
     GRAMMAR_SEX_NONE, 0, GRAMMAR_THING},
    {"sweater", "sweaters", "Pullover", "Pullover", "Pullovern", NULL, NULL, NULL,
     GRAMMAR_MASC, GRAMMAR_SEX_NONE, 0, GRAMMAR_THING},
    {"glove", "gloves", "Handschuh", "Handschuhe", "Handschuhen", NULL, NULL, NULL,
     GRAMMAR_MASC, GRAMMAR_SEX_NONE, 0, GRAMMAR_THING},
    {"scarf", "scarves", "Schal", "Schals", "Schals", NULL, NULL, NULL, GRAMMAR_MASC,
     GRAMMAR_SEX_NONE, 0, GRAMMAR_THING},
    {"bike", "bikes", "Fahrrad", "Fahrräder", "Fahrrädern", NULL, NULL, NULL, GRAMMAR_NEUT,
     GRAMMAR_SEX_NONE, 0, GRAMMAR_THING},
    {"bus", "buses", "Bus", "Busse", "Bussen", NULL, NULL, NULL, GRAMMAR_MASC,
     GRAMMAR_SEX_NONE, 0, GRAMMAR_THING},
    {"train", "trains", "Zug", "Züge", "Zügen", NULL, NULL, NULL, GRAMMAR_MASC,
     GRAMMAR_SEX_NONE, 0, GRAMMAR_THING},
    {"boat", "boats", "Boot", "Boote", "Booten", NULL, NULL, NULL, GRAMMAR_NEUT,
     GRAMMAR_SEX_NONE, 0, GRAMMAR_THING},
    {"ship", "ships", "Schiff", "Schiffe", "Schiffen", NULL, NULL, NULL, GRAMMAR_NEUT,
     GRAMMAR_SEX_NONE, 0, GRAMMAR_THING},
    {"plane", "planes", "Flugzeug", "Flugzeuge", "Flugzeugen", NULL, NULL, NULL,
     GRAMMAR_NEUT, GRAMMAR_SEX_NONE, 0, GRAMMAR_THING},
    {"truck", "trucks", "Lastwagen", "Lastwagen", "Lastwagen", NULL, NULL, NULL,
     GRAMMAR_MASC, GRAMMAR_SEX_NONE, 0, GRAMMAR_THING},
    {"taxi", "taxis", "Taxi", "Taxis", "Taxis", NULL, NULL, NULL, GRAMMAR_NEUT,
     GRAMMAR_SEX_NONE, 0, GRAMMAR_THING},
    {"room", "rooms", "Zimmer", "Zimmer", "Zimmern", NULL, NULL, NULL, GRAMMAR_NEUT,
     GRAMMAR_SEX_NONE, 0, GRAMMAR_THING},
    {"kitchen", "kitchens", "Küche", "Küchen", "Küchen", NULL, NULL, NULL, GRAMMAR_FEM,
     GRAMMAR_SEX_NONE, 0, GRAMMAR_THING},
    {"bathroom", "bathrooms", "Badezimmer", "Badezimmer", "Badezimmern", NULL, NULL, NULL,
     GRAMMAR_NEUT, GRAMMAR_SEX_NONE, 0, GRAMMAR_THING},
    {"office", "offices", "Büro", "Büros", "Büros", NULL, NULL, NULL, GRAMMAR_NEUT,
     GRAMMAR_SEX_NONE, 0, GRAMMAR_THING},
    {"shop", "shops", "Laden", "Läden", "Läden", NULL, NULL, NULL, GRAMMAR_MASC,
     GRAMMAR_SEX_NONE, 0, GRAMMAR_THING},
    {"supermarket", "supermarkets", "Supermarkt", "Supermärkte", "Supermärkten", NULL, NULL,
     NULL, GRAMMAR_MASC, GRAMMAR_SEX_NONE, 0, GRAMMAR_THING},
    {"restaurant", "restaurants", "Restaurant", "Restaurants", "Restaurants", NULL, NULL,
     NULL, GRAMMAR_NEUT, GRAMMAR_SEX_NONE, 0, GRAMMAR_THING},
    {"hotel", "hotels", "Hotel", "Hotels", "Hotels", NULL, NULL, NULL, GRAMMAR_NEUT,
     GRAMMAR_SEX_NONE, 0, GRAMMAR_THING},
    {"hospital", "hospitals", "Krankenhaus", "Krankenhäuser", "Krankenhäusern", NULL, NULL,
     NULL, GRAMMAR_NEUT, GRAMMAR_SEX_NONE, 0, GRAMMAR_THING},
    {"church", "churches", "Kirche", "Kirchen", "Kirchen", NULL, NULL, NULL, GRAMMAR_FEM,
     GRAMMAR_SEX_NONE, 0, GRAMMAR_THING},
    {"bank", "banks", "Bank", "Banken", "Banken", NULL, NULL, NULL, GRAMMAR_FEM,
     GRAMMAR_SEX_NONE, 0, GRAMMAR_THING},
    {"station", "stations", "Bahnhof", "Bahnhöfe", "Bahnhöfen", NULL, NULL, NULL,
     GRAMMAR_MASC, GRAMMAR_SEX_NONE, 0, GRAMMAR_THING},
    {"museum", "museums", "Museum", "Museen", "Museen", NULL, NULL, NULL, GRAMMAR_NEUT,
     GRAMMAR_SEX_NONE, 0, GRAMMAR_THING},
    {"library", "libraries", "Bibliothek", "Bibliotheken", "Bibliotheken", NULL, NULL, NULL,
     GRAMMAR_FEM, GRAMMAR_SEX_NONE, 0, GRAMMAR_THING},
    {"cinema", "cinemas", "Kino", "Kinos", "Kinos", NULL, NULL, NULL, GRAMMAR_NEUT,
     GRAMMAR_SEX_NONE, 0, GRAMMAR_THING},
    {"theater", "theaters", "Theater", "Theater", "Theatern", NULL, NULL, NULL,
     GRAMMAR_NEUT, GRAMMAR_SEX_NONE, 0, GRAMMAR_THING},
    {"apartment", "apartments", "Wohnung", "Wohnungen", "Wohnungen", NULL, NULL, NULL,
     GRAMMAR_FEM, GRAMMAR_SEX_NONE, 0, GRAMMAR_THING},
    {"village", "villages", "Dorf", "Dörfer", "Dörfern", NULL, NULL, NULL, GRAMMAR_NEUT,
     GRAMMAR_SEX_NONE, 0, GRAMMAR_THING},
    {"park", "parks", "Park", "Parks", "Parks", NULL, NULL, NULL, GRAMMAR_MASC,
     GRAMMAR_SEX_NONE, 0, GRAMMAR_THING},
    {"zoo", "zoos", "Zoo", "Zoos", "Zoos", NULL, NULL, NULL, GRAMMAR_MASC, GRAMMAR_SEX_NONE,
     0, GRAMMAR_THING},
    {"forest", "forests", "Wald", "Wälder", "Wäldern", NULL, NULL, NULL, GRAMMAR_MASC,
     GRAMMAR_SEX_NONE, 0, GRAMMAR_THING},
    {"lake", "lakes", "See", "Seen", "Seen", NULL, NULL, NULL, GRAMMAR_MASC,
     GRAMMAR_SEX_NONE, 0, GRAMMAR_THING},
    {"river", "rivers", "Fluss", "Flüsse", "Flüssen", NULL, NULL, NULL, GRAMMAR_MASC,
     GRAMMAR_SEX_NONE, 0, GRAMMAR_THING},
    {"sea", "seas", "Meer", "Meere", "Meeren", NULL, NULL, NULL, GRAMMAR_NEUT,
     GRAMMAR_SEX_NONE, 1, GRAMMAR_THING},
    {"beach", "beaches", "Strand", "Strände", "Stränden", NULL, NULL, NULL, GRAMMAR_MASC,
     GRAMMAR_SEX_NONE, 0, GRAMMAR_THING},
    {"island", "islands", "Insel", "Inseln", "Inseln", NULL, NULL, NULL, GRAMMAR_FEM,
     GRAMMAR_SEX_NONE, 0, GRAMMAR_THING},
    {"mountain", "mountains", "Berg", "Berge", "Bergen", NULL, NULL, NULL, GRAMMAR_MASC,
     GRAMMAR_SEX_NONE, 0, GRAMMAR_THING},
    {"bridge", "bridges", "Brücke", "Brücken", "Brücken", NULL, NULL, NULL, GRAMMAR_FEM,
     GRAMMAR_SEX_NONE, 0, GRAMMAR_THING},
    {"tower", "towers", "Turm", "Türme", "Türmen", NULL, NULL, NULL, GRAMMAR_MASC,
     GRAMMAR_SEX_NONE, 0, GRAMMAR_THING},
    {"castle", "castles", "Burg", "Burgen", "Burgen", NULL, NULL, NULL, GRAMMAR_FEM,
     GRAMMAR_SEX_NONE, 0, GRAMMAR_THING},
    {"farm", "farms", "Bauernhof", "Bauernhöfe", "Bauernhöfen", NULL, NULL, NULL,
     GRAMMAR_MASC, GRAMMAR_SEX_NONE, 0, GRAMMAR_THING},
    {"country", "countries", "Land", "Länder", "Ländern", NULL, NULL, NULL, GRAMMAR_NEUT,
     GRAMMAR_SEX_NONE, 0, GRAMMAR_THING},
    {"world", "worlds", "Welt", "Welten", "Welten", NULL, NULL, NULL, GRAMMAR_FEM,
     GRAMMAR_SEX_NONE, 1, GRAMMAR_THING},
    {"field", "fields", "Feld", "Felder", "Feldern", NULL, NULL, NULL, GRAMMAR_NEUT,
     GRAMMAR_SEX_NONE, 0, GRAMMAR_THING},
    {"wall", "walls", "Wand", "Wände", "Wänden", NULL, NULL, NULL, GRAMMAR_FEM,
     GRAMMAR_SEX_NONE, 0, GRAMMAR_THING},
    {"floor", "floors", "Boden", "Böden", "Böden", NULL, NULL, NULL, GRAMMAR_MASC,
     GRAMMAR_SEX_NONE, 0, GRAMMAR_THING},
    {"roof", "roofs", "Dach", "Dächer", "Dächern", NULL, NULL, NULL, GRAMMAR_NEUT,
     GRAMMAR_SEX_NONE, 0, GRAMMAR_THING},
    {"fridge", "fridges", "Kühlschrank", "Kühlschränke", "Kühlschränken", NULL, NULL, NULL,
     GRAMMAR_MASC, GRAMMAR_SEX_NONE, 0, GRAMMAR_THING},
    {"star", "stars", "Stern", "Sterne", "Sternen", NULL, NULL, NULL, GRAMMAR_MASC,
     GRAMMAR_SEX_NONE, 1, GRAMMAR_THING},
    {"cloud", "clouds", "Wolke", "Wolken", "Wolken", NULL, NULL, NULL, GRAMMAR_FEM,
     GRAMMAR_SEX_NONE, 1, GRAMMAR_THING},
    {"grass", NULL, "Gras", NULL, NULL, NULL, NULL, NULL, GRAMMAR_NEUT, GRAMMAR_SEX_NONE,
     0, GRAMMAR_THING},
    {"snow", NULL, "Schnee", NULL, NULL, NULL, NULL, NULL, GRAMMAR_MASC, GRAMMAR_SEX_NONE,
     1, GRAMMAR_THING},
    {"rain", NULL, "Regen", NULL, NULL, NULL, NULL, NULL, GRAMMAR_MASC, GRAMMAR_SEX_NONE,
     1, GRAMMAR_THING},
    {"question", "questions", "Frage", "Fragen", "Fragen", NULL, NULL, NULL, GRAMMAR_FEM,
     GRAMMAR_SEX_NONE, 0, GRAMMAR_THING},
    {"answer", "answers", "Antwort", "Antworten", "Antworten", NULL, NULL, NULL,
     GRAMMAR_FEM, GRAMMAR_SEX_NONE, 0, GRAMMAR_THING},
    {"idea", "ideas", "Idee", "Ideen", "Ideen", NULL, NULL, NULL, GRAMMAR_FEM,
     GRAMMAR_SEX_NONE, 0, GRAMMAR_THING},
    {"story", "stories", "Geschichte", "Geschichten", "Geschichten", NULL, NULL, NULL,
     GRAMMAR_FEM, GRAMMAR_SEX_NONE, 0, GRAMMAR_THING},
    {"name", "names", "Name", "Namen", "Namen", "Namen", NULL, NULL, GRAMMAR_MASC,
     GRAMMAR_SEX_NONE, 0, GRAMMAR_THING},
    {"word", "words", "Wort", "Wörter", "Wörtern", NULL, NULL, NULL, GRAMMAR_NEUT,
     GRAMMAR_SEX_NONE, 0, GRAMMAR_THING},
    {"song", "songs", "Lied", "Lieder", "Liedern", NULL, NULL, NULL, GRAMMAR_NEUT,
     GRAMMAR_SEX_NONE, 0, GRAMMAR_THING},
    {"movie", "movies", "Film", "Filme", "Filmen", NULL, NULL, NULL, GRAMMAR_MASC,
     GRAMMAR_SEX_NONE, 0, GRAMMAR_THING},
    {"music", NULL, "Musik", NULL, NULL, NULL, NULL, NULL, GRAMMAR_FEM, GRAMMAR_SEX_NONE,
     0, GRAMMAR_THING},
    {"language", "languages", "Sprache", "Sprachen", "Sprachen", NULL, NULL, NULL,
     GRAMMAR_FEM, GRAMMAR_SEX_NONE, 0, GRAMMAR_THING},
    {"number", "numbers", "Zahl", "Zahlen", "Zahlen", NULL, NULL, NULL, GRAMMAR_FEM,
     GRAMMAR_SEX_NONE, 0, GRAMMAR_THING},
    {"problem", "problems", "Problem", "Probleme", "Problemen", NULL, NULL, NULL,
     GRAMMAR_NEUT, GRAMMAR_SEX_NONE, 0, GRAMMAR_THING},
    {"job", "jobs", "Job", "Jobs", "Jobs", NULL, NULL, NULL, GRAMMAR_MASC, GRAMMAR_SEX_NONE,
     0, GRAMMAR_THING},
    {"plan", "plans", "Plan", "Pläne", "Plänen", NULL, NULL, NULL, GRAMMAR_MASC,
     GRAMMAR_SEX_NONE, 0, GRAMMAR_THING},
    {"dream", "dreams", "Traum", "Träume", "Träumen", NULL, NULL, NULL, GRAMMAR_MASC,
     GRAMMAR_SEX_NONE, 0, GRAMMAR_THING},
    {"joke", "jokes", "Witz", "Witze", "Witzen", NULL, NULL, NULL, GRAMMAR_MASC,
     GRAMMAR_SEX_NONE, 0, GRAMMAR_THING},
    {"secret", "secrets", "Geheimnis", "Geheimnisse", "Geheimnissen", NULL, NULL, NULL,
     GRAMMAR_NEUT, GRAMMAR_SEX_NONE, 0, GRAMMAR_THING},
    {"money", NULL, "Geld", NULL, NULL, NULL, NULL, NULL, GRAMMAR_NEUT, GRAMMAR_SEX_NONE,
     0, GRAMMAR_THING},
    {"birthday", "birthdays", "Geburtstag", "Geburtstage", "Geburtstagen", NULL, NULL, NULL,
     GRAMMAR_MASC, GRAMMAR_SEX_NONE, 0, GRAMMAR_THING},
    {"party", "parties", "Party", "Partys", "Partys", NULL, NULL, NULL, GRAMMAR_FEM,
     GRAMMAR_SEX_NONE, 0, GRAMMAR_THING},
    {"trip", "trips", "Reise", "Reisen", "Reisen", NULL, NULL, NULL, GRAMMAR_FEM,
     GRAMMAR_SEX_NONE, 0, GRAMMAR_THING},
    {"test", "tests", "Test", "Tests", "Tests", NULL, NULL, NULL, GRAMMAR_MASC,
     GRAMMAR_SEX_NONE, 0, GRAMMAR_THING},
    {"message", "messages", "Nachricht", "Nachrichten", "Nachrichten", NULL, NULL, NULL,
     GRAMMAR_FEM, GRAMMAR_SEX_NONE, 0, GRAMMAR_THING},
    {"game", "games", "Spiel", "Spiele", "Spielen", NULL, NULL, NULL, GRAMMAR_NEUT,
     GRAMMAR_SEX_NONE, 0, GRAMMAR_THING},
    {"hand", "hands", "Hand", "Hände", "Händen", NULL, NULL, NULL, GRAMMAR_FEM,
     GRAMMAR_SEX_NONE, 0, GRAMMAR_THING},
    {"head", "heads", "Kopf", "Köpfe", "Köpfen", NULL, NULL, NULL, GRAMMAR_MASC,
     GRAMMAR_SEX_NONE, 0, GRAMMAR_THING},
    {"eye", "eyes", "Auge", "Augen", "Augen", NULL, NULL, NULL, GRAMMAR_NEUT,
     GRAMMAR_SEX_NONE, 0, GRAMMAR_THING},
    {"nose", "noses", "Nase", "Nasen", "Nasen", NULL, NULL, NULL, GRAMMAR_FEM,
     GRAMMAR_SEX_NONE, 0, GRAMMAR_THING},
    {"mouth", "mouths", "Mund", "Münder", "Mündern", NULL, NULL, NULL, GRAMMAR_MASC,
     GRAMMAR_SEX_NONE, 0, GRAMMAR_THING},
    {"ear", "ears", "Ohr", "Ohren", "Ohren", NULL, NULL, NULL, GRAMMAR_NEUT,
     GRAMMAR_SEX_NONE, 0, GRAMMAR_THING},
    {"foot", "feet", "Fuß", "Füße", "Füßen", NULL, NULL, NULL, GRAMMAR_MASC,
     GRAMMAR_SEX_NONE, 0, GRAMMAR_THING},
    {"arm", "arms", "Arm", "Arme", "Armen", NULL, NULL, NULL, GRAMMAR_MASC,
     GRAMMAR_SEX_NONE, 0, GRAMMAR_THING},
    {"leg", "legs", "Bein", "Beine", "Beinen", NULL, NULL, NULL, GRAMMAR_NEUT,
     GRAMMAR_SEX_NONE, 0, GRAMMAR_THING},
    {"face", "faces", "Gesicht", "Gesichter", "Gesichtern", NULL, NULL, NULL, GRAMMAR_NEUT,
     GRAMMAR_SEX_NONE, 0, GRAMMAR_THING},
    {"tooth", "teeth", "Zahn", "Zähne", "Zähnen", NULL, NULL, NULL, GRAMMAR_MASC,
     GRAMMAR_SEX_NONE, 0, GRAMMAR_THING},
    {"cousin", "cousins", "Cousin", "Cousins", "Cousins", NULL, "Cousine", "Cousinen",
     GRAMMAR_MASC, GRAMMAR_SEX_M, 0, GRAMMAR_PERSON},
    {"squirrel", "squirrels", "Eichhörnchen", "Eichhörnchen", "Eichhörnchen", NULL, NULL,
     NULL, GRAMMAR_NEUT, GRAMMAR_SEX_NONE, 0, GRAMMAR_ANIMAL},
    {"hamster", "hamsters", "Hamster", "Hamster", "Hamstern", NULL, NULL, NULL,
     GRAMMAR_MASC, GRAMMAR_SEX_NONE, 0, GRAMMAR_ANIMAL},
    {"whale", "whales", "Wal", "Wale", "Walen", NULL, NULL, NULL, GRAMMAR_MASC,
     GRAMMAR_SEX_NONE, 0, GRAMMAR_ANIMAL},
    {"shark", "sharks", "Hai", "Haie", "Haien", NULL, NULL, NULL, GRAMMAR_MASC,
     GRAMMAR_SEX_NONE, 0, GRAMMAR_ANIMAL},
    {"dolphin", "dolphins", "Delfin", "Delfine", "Delfinen", NULL, NULL, NULL, GRAMMAR_MASC,
     GRAMMAR_SEX_NONE, 0, GRAMMAR_ANIMAL},
    {"camel", "camels", "Kamel", "Kamele", "Kamelen", NULL, NULL, NULL, GRAMMAR_NEUT,
     GRAMMAR_SEX_NONE, 0, GRAMMAR_ANIMAL},
    {"crocodile", "crocodiles", "Krokodil", "Krokodile", "Krokodilen", NULL, NULL, NULL,
     GRAMMAR_NEUT, GRAMMAR_SEX_NONE, 0, GRAMMAR_ANIMAL},
    {"snail", "snails", "Schnecke", "Schnecken", "Schnecken", NULL, NULL, NULL, GRAMMAR_FEM,
     GRAMMAR_SEX_NONE, 0, GRAMMAR_ANIMAL},
    {"grape", "grapes", "Traube", "Trauben", "Trauben", NULL, NULL, NULL, GRAMMAR_FEM,
     GRAMMAR_SEX_NONE, 0, GRAMMAR_THING},
    {"bean", "beans", "Bohne", "Bohnen", "Bohnen", NULL, NULL, NULL, GRAMMAR_FEM,
     GRAMMAR_SEX_NONE, 0, GRAMMAR_THING},
    {"peach", "peaches", "Pfirsich", "Pfirsiche", "Pfirsichen", NULL, NULL, NULL,
     GRAMMAR_MASC, GRAMMAR_SEX_NONE, 0, GRAMMAR_THING},
    {"melon", "melons", "Melone", "Melonen", "Melonen", NULL, NULL, NULL, GRAMMAR_FEM,
     GRAMMAR_SEX_NONE, 0, GRAMMAR_THING},
    {"cucumber", "cucumbers", "Gurke", "Gurken", "Gurken", NULL, NULL, NULL, GRAMMAR_FEM,
     GRAMMAR_SEX_NONE, 0, GRAMMAR_THING},
    {"mushroom", "mushrooms", "Pilz", "Pilze", "Pilzen", NULL, NULL, NULL, GRAMMAR_MASC,
     GRAMMAR_SEX_NONE, 0, GRAMMAR_THING},
    {"flour", NULL, "Mehl", NULL, NULL, NULL, NULL, NULL, GRAMMAR_NEUT, GRAMMAR_SEX_NONE,
     0, GRAMMAR_THING},
    {"oil", NULL, "Öl", NULL, NULL, NULL, NULL, NULL, GRAMMAR_NEUT, GRAMMAR_SEX_NONE, 0, GRAMMAR_THING},
    {"pot", "pots", "Topf", "Töpfe", "Töpfen", NULL, NULL, NULL, GRAMMAR_MASC,
     GRAMMAR_SEX_NONE, 0, GRAMMAR_THING},
    {"pan", "pans", "Pfanne", "Pfannen", "Pfannen", NULL, NULL, NULL, GRAMMAR_FEM,
     GRAMMAR_SEX_NONE, 0, GRAMMAR_THING},
    {"basket", "baskets", "Korb", "Körbe", "Körben", NULL, NULL, NULL, GRAMMAR_MASC,
     GRAMMAR_SEX_NONE, 0, GRAMMAR_THING},
    {"suitcase", "suitcases", "Koffer", "Koffer", "Koffern", NULL, NULL, NULL, GRAMMAR_MASC,
     GRAMMAR_SEX_NONE, 0, GRAMMAR_THING},
    {"wallet", "wallets", "Geldbörse", "Geldbörsen", "Geldbörsen", NULL, NULL, NULL,
     GRAMMAR_FEM, GRAMMAR_SEX_NONE, 0, GRAMMAR_THING},
    {"ring", "rings", "Ring", "Ringe", "Ringen", NULL, NULL, NULL, GRAMMAR_MASC,
     GRAMMAR_SEX_NONE, 0, GRAMMAR_THING},
    {"necklace", "necklaces", "Halskette", "Halsketten", "Halsketten", NULL, NULL, NULL,
     GRAMMAR_FEM, GRAMMAR_SEX_NONE, 0, GRAMMAR_THING},
    {"radio", "radios", "Radio", "Radios", "Radios", NULL, NULL, NULL, GRAMMAR_NEUT,
     GRAMMAR_SEX_NONE, 0, GRAMMAR_THING},
    {"television", "televisions", "Fernseher", "Fernseher", "Fernsehern", NULL, NULL, NULL,
     GRAMMAR_MASC, GRAMMAR_SEX_NONE, 0, GRAMMAR_THING},
    {"camera", "cameras", "Kamera", "Kameras", "Kameras", NULL, NULL, NULL, GRAMMAR_FEM,
     GRAMMAR_SEX_NONE, 0, GRAMMAR_THING},
    {"guitar", "guitars", "Gitarre", "Gitarren", "Gitarren", NULL, NULL, NULL, GRAMMAR_FEM,
     GRAMMAR_SEX_NONE, 0, GRAMMAR_THING},
    {"piano", "pianos", "Klavier", "Klaviere", "Klavieren", NULL, NULL, NULL, GRAMMAR_NEUT,
     GRAMMAR_SEX_NONE, 0, GRAMMAR_THING},
    {"desk", "desks", "Schreibtisch", "Schreibtische", "Schreibtischen", NULL, NULL, NULL,
     GRAMMAR_MASC, GRAMMAR_SEX_NONE, 0, GRAMMAR_THING},
    {"shelf", "shelves", "Regal", "Regale", "Regalen", NULL, NULL, NULL, GRAMMAR_NEUT,
     GRAMMAR_SEX_NONE, 0, GRAMMAR_THING},
    {"carpet", "carpets", "Teppich", "Teppiche", "Teppichen", NULL, NULL, NULL,
     GRAMMAR_MASC, GRAMMAR_SEX_NONE, 0, GRAMMAR_THING},
    {"coin", "coins", "Münze", "Münzen", "Münzen", NULL, NULL, NULL, GRAMMAR_FEM,
     GRAMMAR_SEX_NONE, 0, GRAMMAR_THING},
    {"paper", NULL, "Papier", NULL, NULL, NULL, NULL, NULL, GRAMMAR_NEUT, GRAMMAR_SEX_NONE,
     0, GRAMMAR_THING},
    {"doll", "dolls", "Puppe", "Puppen", "Puppen", NULL, NULL, NULL, GRAMMAR_FEM,
     GRAMMAR_SEX_NONE, 0, GRAMMAR_THING},
    {"tent", "tents", "Zelt", "Zelte", "Zelten", NULL, NULL, NULL, GRAMMAR_NEUT,
     GRAMMAR_SEX_NONE, 0, GRAMMAR_THING},
    {"market", "markets", "Markt", "Märkte", "Märkten", NULL, NULL, NULL, GRAMMAR_MASC,
     GRAMMAR_SEX_NONE, 0, GRAMMAR_THING},
    {"playground", "playgrounds", "Spielplatz", "Spielplätze", "Spielplätzen", NULL, NULL,
     NULL, GRAMMAR_MASC, GRAMMAR_SEX_NONE, 0, GRAMMAR_THING},
    {"harbor", "harbors", "Hafen", "Häfen", "Häfen", NULL, NULL, NULL, GRAMMAR_MASC,
     GRAMMAR_SEX_NONE, 0, GRAMMAR_THING},
    {"vase", "vases", "Vase", "Vasen", "Vasen", NULL, NULL, NULL, GRAMMAR_FEM,
     GRAMMAR_SEX_NONE, 0, GRAMMAR_THING},
};
_Static_assert(sizeof GRAMMAR_NOUNS / sizeof GRAMMAR_NOUNS[0] == GRAMMAR_N_NOUNS,
               "GRAMMAR_N_NOUNS");

const GrammarAdjective GRAMMAR_ADJECTIVES[] = {
    {"big", "groß", NULL, {"small", NULL}}, {"small", "klein", NULL, {"big", NULL}},
    {"old", "alt", NULL, {"new", "young"}}, {"new", "neu", NULL, {"old", NULL}},
    {"good", "gut", NULL, {"bad", "terrible"}}, {"red", "rot", NULL, {NULL, NULL}},
    {"beautiful", "schön", NULL, {"ugly", NULL}}, {"young", "jung", NULL, {"old", NULL}},
    {"blue", "blau", NULL, {NULL, NULL}}, {"green", "grün", NULL, {NULL, NULL}},
    {"yellow", "gelb", NULL, {NULL, NULL}}, {"black", "schwarz", NULL, {NULL, NULL}},
    {"white", "weiß", NULL, {NULL, NULL}}, {"brown", "braun", NULL, {NULL, NULL}},
    {"gray", "grau", NULL, {NULL, NULL}}, {"long", "lang", NULL, {"short", NULL}},
    {"short", "kurz", NULL, {"long", NULL}}, {"fast", "schnell", NULL, {"slow", NULL}},
    {"slow", "langsam", NULL, {"fast", NULL}}, {"hot", "heiß", NULL, {"cold", "cool", "warm"}},
    {"cold", "kalt", NULL, {"hot", "warm", "cool"}}, {"warm", "warm", NULL, {"cold", "cool", "hot"}},
    {"cool", "kühl", NULL, {"hot", "warm", "cold"}}, {"happy", "glücklich", NULL, {"sad", NULL}},
    {"sad", "traurig", NULL, {"happy", NULL}}, {"tired", "müde", "müd", {NULL, NULL}},
    {"hungry", "hungrig", NULL, {NULL, NULL}}, {"thirsty", "durstig", NULL, {NULL, NULL}},
    {"angry", "wütend", NULL, {NULL, NULL}}, {"sick", "krank", NULL, {"healthy", NULL}},
    {"healthy", "gesund", NULL, {"sick", NULL}}, {"nice", "nett", NULL, {NULL, NULL}},
    {"friendly", "freundlich", NULL, {NULL, NULL}},
    {"clever", "klug", NULL, {"stupid", NULL}}, {"stupid", "dumm", NULL, {"clever", NULL}},
    {"lazy", "faul", NULL, {"busy", NULL}}, {"shy", "schüchtern", NULL, {"brave", NULL}},
    {"brave", "mutig", NULL, {"shy", NULL}}, {"proud", "stolz", NULL, {NULL, NULL}},
    {"rich", "reich", NULL, {"poor", NULL}}, {"poor", "arm", NULL, {"rich", NULL}},
    {"busy", "beschäftigt", NULL, {"lazy", NULL}},
    {"polite", "höflich", NULL, {NULL, NULL}}, {"famous", "berühmt", NULL, {NULL, NULL}},
    {"funny", "lustig", NULL, {NULL, NULL}}, {"strong", "stark", NULL, {"weak", NULL}},
    {"weak", "schwach", NULL, {"strong", NULL}}, {"thin", "dünn", NULL, {"fat", NULL}},
    {"fat", "dick", NULL, {"thin", NULL}}, {"clean", "sauber", NULL, {"dirty", NULL}},
    {"dirty", "schmutzig", NULL, {"clean", NULL}},
    {"expensive", "teuer", "teur", {"cheap", NULL}},
    {"cheap", "billig", NULL, {"expensive", NULL}},
    {"heavy", "schwer", NULL, {"light", NULL}}, {"light", "leicht", NULL, {"heavy", NULL}},
    {"easy", "einfach", NULL, {"difficult", NULL}},
    {"difficult", "schwierig", NULL, {"easy", NULL}},
    {"interesting", "interessant", NULL, {"boring", NULL}},
    {"boring", "langweilig", NULL, {"interesting", NULL}},
    {"important", "wichtig", NULL, {NULL, NULL}}, {"loud", "laut", NULL, {"quiet", NULL}},
    {"quiet", "leise", "leis", {"loud", NULL}},
    {"dark", "dunkel", "dunkl", {"bright", NULL}}, {"bright", "hell", NULL, {"dark", NULL}},
    {"full", "voll", NULL, {"empty", NULL}}, {"empty", "leer", NULL, {"full", NULL}},
    {"fresh", "frisch", NULL, {NULL, NULL}}, {"sweet", "süß", NULL, {"sour", NULL}},
    {"delicious", "lecker", NULL, {NULL, NULL}}, {"sour", "sauer", "saur", {"sweet", NULL}},
    {"salty", "salzig", NULL, {NULL, NULL}}, {"soft", "weich", NULL, {"hard", NULL}},
    {"hard", "hart", NULL, {"soft", NULL}}, {"round", "rund", NULL, {NULL, NULL}},
    {"flat", "flach", NULL, {NULL, NULL}}, {"wet", "nass", NULL, {"dry", NULL}},
    {"dry", "trocken", NULL, {"wet", NULL}}, {"safe", "sicher", NULL, {"dangerous", NULL}},
    {"dangerous", "gefährlich", NULL, {"safe", NULL}},
    {"modern", "modern", NULL, {"old", NULL}},
    {"comfortable", "bequem", NULL, {NULL, NULL}},
    {"wrong", "falsch", NULL, {"correct", "true"}},
    {"correct", "richtig", NULL, {"wrong", NULL}}, {"true", "wahr", NULL, {"wrong", NULL}},
    {"bad", "schlecht", NULL, {"good", "great"}},
    {"wonderful", "wunderbar", NULL, {"terrible", "bad"}},
    {"terrible", "schrecklich", NULL, {"wonderful", "great"}},
    {"great", "toll", NULL, {"bad", "terrible"}},
    {"strange", "seltsam", NULL, {NULL, NULL}},
    {"ugly", "hässlich", NULL, {"beautiful", "pretty"}},
    {"pretty", "hübsch", NULL, {"ugly", NULL}}, {"cute", "niedlich", NULL, {NULL, NULL}},
    {"wild", "wild", NULL, {"tame", NULL}}, {"tame", "zahm", NULL, {"wild", NULL}},
};
_Static_assert(sizeof GRAMMAR_ADJECTIVES / sizeof GRAMMAR_ADJECTIVES[0] ==
               GRAMMAR_N_ADJECTIVES, "GRAMMAR_N_ADJECTIVES");

const GrammarVerb GRAMMAR_VERBS[] = {
    {"see", "sees", {"sehe", "siehst", "sieht", "sehen", "sehen"}, "sieh"},
    {"have", "has", {"habe", "hast", "hat", "haben", "haben"}, NULL},
    {"read", "reads", {"lese", "liest", "liest", "lesen", "lesen"}, "lies"},
    {"write", "writes", {"schreibe", "schreibst", "schreibt", "schreiben", "schreiben"},
     "schreib"},
    {"buy", "buys", {"kaufe", "kaufst", "kauft", "kaufen", "kaufen"}, "kauf"},
    {"eat", "eats", {"esse", "isst", "isst", "essen", "essen"}, "iss"},
    {"find", "finds", {"finde", "findest", "findet", "finden", "finden"}, "finde"},
    {"need", "needs", {"brauche", "brauchst", "braucht", "brauchen", "brauchen"}, NULL},
    {"love", "loves", {"liebe", "liebst", "liebt", "lieben", "lieben"}, NULL},
    {"drink", "drinks", {"trinke", "trinkst", "trinkt", "trinken", "trinken"}, "trink"},
    {"like", "likes", {"mag", "magst", "mag", "mögen", "mögen"}, NULL},
    {"hate", "hates", {"hasse", "hasst", "hasst", "hassen", "hassen"}, NULL},
    {"know", "knows", {"kenne", "kennst", "kennt", "kennen", "kennen"}, NULL},
    {"want", "wants", {"will", "willst", "will", "wollen", "wollen"}, NULL},
    {"hear", "hears", {"höre", "hörst", "hört", "hören", "hören"}, "hör"},
    {"ask", "asks", {"frage", "fragst", "fragt", "fragen", "fragen"}, "frag"},
    {"visit", "visits", {"besuche", "besuchst", "besucht", "besuchen", "besuchen"},
     "besuch"},
    {"call", "calls", {"rufe", "rufst", "ruft", "rufen", "rufen"}, "ruf"},
    {"meet", "meets", {"treffe", "triffst", "trifft", "treffen", "treffen"}, "triff"},
    {"take", "takes", {"nehme", "nimmst", "nimmt", "nehmen", "nehmen"}, "nimm"},
    {"bring", "brings", {"bringe", "bringst", "bringt", "bringen", "bringen"}, "bring"},
    {"wear", "wears", {"trage", "trägst", "trägt", "tragen", "tragen"}, "trag"},
    {"hold", "holds", {"halte", "hältst", "hält", "halten", "halten"}, "halt"},
    {"open", "opens", {"öffne", "öffnest", "öffnet", "öffnen", "öffnen"}, "öffne"},
    {"close", "closes", {"schließe", "schließt", "schließt", "schließen", "schließen"},
     "schließ"},
    {"wash", "washes", {"wasche", "wäschst", "wäscht", "waschen", "waschen"}, "wasch"},
    {"cook", "cooks", {"koche", "kochst", "kocht", "kochen", "kochen"}, "koch"},
    {"paint", "paints", {"male", "malst", "malt", "malen", "malen"}, "mal"},
    {"draw", "draws", {"zeichne", "zeichnest", "zeichnet", "zeichnen", "zeichnen"},
     "zeichne"},
    {"play", "plays", {"spiele", "spielst", "spielt", "spielen", "spielen"}, "spiel"},
    {"sing", "sings", {"singe", "singst", "singt", "singen", "singen"}, "sing"},
    {"learn", "learns", {"lerne", "lernst", "lernt", "lernen", "lernen"}, "lern"},
    {"teach", "teaches",
     {"unterrichte", "unterrichtest", "unterrichtet", "unterrichten", "unterrichten"},
     "unterrichte"},
    {"sell", "sells", {"verkaufe", "verkaufst", "verkauft", "verkaufen", "verkaufen"},
     "verkauf"},
    {"pay", "pays", {"bezahle", "bezahlst", "bezahlt", "bezahlen", "bezahlen"}, "bezahl"},
    {"send", "sends", {"schicke", "schickst", "schickt", "schicken", "schicken"}, "schick"},
    {"get", "gets", {"bekomme", "bekommst", "bekommt", "bekommen", "bekommen"}, NULL},
    {"use", "uses", {"benutze", "benutzt", "benutzt", "benutzen", "benutzen"}, "benutz"},
    {"make", "makes", {"mache", "machst", "macht", "machen", "machen"}, "mach"},
    {"build", "builds", {"baue", "baust", "baut", "bauen", "bauen"}, "bau"},
    {"repair", "repairs",
     {"repariere", "reparierst", "repariert", "reparieren", "reparieren"}, "reparier"},
    {"feed", "feeds", {"füttere", "fütterst", "füttert", "füttern", "füttern"}, "füttere"},
    {"kiss", "kisses", {"küsse", "küsst", "küsst", "küssen", "küssen"}, "küss"},
    {"hug", "hugs", {"umarme", "umarmst", "umarmt", "umarmen", "umarmen"}, "umarm"},
    {"understand", "understands",
     {"verstehe", "verstehst", "versteht", "verstehen", "verstehen"}, "versteh"},
    {"forget", "forgets", {"vergesse", "vergisst", "vergisst", "vergessen", "vergessen"},
     "vergiss"},
    {"catch", "catches", {"fange", "fängst", "fängt", "fangen", "fangen"}, "fang"},
    {"throw", "throws", {"werfe", "wirfst", "wirft", "werfen", "werfen"}, "wirf"},
    {"push", "pushes", {"schiebe", "schiebst", "schiebt", "schieben", "schieben"},
     "schieb"},
    {"pull", "pulls", {"ziehe", "ziehst", "zieht", "ziehen", "ziehen"}, "zieh"},
    {"cut", "cuts", {"schneide", "schneidest", "schneidet", "schneiden", "schneiden"},
     "schneide"},
    {"fill", "fills", {"fülle", "füllst", "füllt", "füllen", "füllen"}, "füll"},
    {"lose", "loses", {"verliere", "verlierst", "verliert", "verlieren", "verlieren"},
     NULL},
    {"miss", "misses", {"vermisse", "vermisst", "vermisst", "vermissen", "vermissen"},
     NULL},
    {"order", "orders", {"bestelle", "bestellst", "bestellt", "bestellen", "bestellen"},
     "bestell"},
    {"try", "tries", {"probiere", "probierst", "probiert", "probieren", "probieren"},
     "probier"},
    {"choose", "chooses", {"wähle", "wählst", "wählt", "wählen", "wählen"}, "wähl"},
    {"show", "shows", {"zeige", "zeigst", "zeigt", "zeigen", "zeigen"}, "zeig"},
    {"plant", "plants", {"pflanze", "pflanzt", "pflanzt", "pflanzen", "pflanzen"},
     "pflanz"},
    {"drive", "drives", {"fahre", "fährst", "fährt", "fahren", "fahren"}, "fahr"},
    {"wake", "wakes", {"wecke", "weckst", "weckt", "wecken", "wecken"}, "weck"},
    {"greet", "greets", {"begrüße", "begrüßt", "begrüßt", "begrüßen", "begrüßen"},
     "begrüß"},
    {"marry", "marries", {"heirate", "heiratest", "heiratet", "heiraten", "heiraten"},
     "heirate"},
    {"touch", "touches", {"berühre", "berührst", "berührt", "berühren", "berühren"},
     "berühr"},
    {"smell", "smells", {"rieche", "riechst", "riecht", "riechen", "riechen"}, "riech"},
    {"protect", "protects", {"schütze", "schützt", "schützt", "schützen", "schützen"},
     "schütz"},
    {"hide", "hides", {"verstecke", "versteckst", "versteckt", "verstecken", "verstecken"},
     "versteck"},
    {"describe", "describes",
     {"beschreibe", "beschreibst", "beschreibt", "beschreiben", "beschreiben"},
     "beschreib"},
    {"explain", "explains", {"erkläre", "erklärst", "erklärt", "erklären", "erklären"},
     "erklär"},
    {"keep", "keeps", {"behalte", "behältst", "behält", "behalten", "behalten"}, "behalt"},
    {"enjoy", "enjoys", {"genieße", "genießt", "genießt", "genießen", "genießen"},
     "genieß"},
    {"celebrate", "celebrates", {"feiere", "feierst", "feiert", "feiern", "feiern"},
     "feiere"},
    {"practice", "practices", {"übe", "übst", "übt", "üben", "üben"}, "üb"},
    {"translate", "translates",
     {"übersetze", "übersetzt", "übersetzt", "übersetzen", "übersetzen"}, "übersetz"},
    {"change", "changes", {"ändere", "änderst", "ändert", "ändern", "ändern"}, "ändere"},
    {"bite", "bites", {"beiße", "beißt", "beißt", "beißen", "beißen"}, "beiß"},
    {"hunt", "hunts", {"jage", "jagst", "jagt", "jagen", "jagen"}, "jag"},
    {"steal", "steals", {"stehle", "stiehlst", "stiehlt", "stehlen", "stehlen"}, "stiehl"},
    {"save", "saves", {"rette", "rettest", "rettet", "retten", "retten"}, "rette"},
    {"lift", "lifts", {"hebe", "hebst", "hebt", "heben", "heben"}, "heb"},
    {"fetch", "fetches", {"hole", "holst", "holt", "holen", "holen"}, "hol"},
    {"cross", "crosses",
     {"überquere", "überquerst", "überquert", "überqueren", "überqueren"}, "überquer"},
    {"leave", "leaves", {"verlasse", "verlässt", "verlässt", "verlassen", "verlassen"},
     "verlass"},
    {"collect", "collects", {"sammle", "sammelst", "sammelt", "sammeln", "sammeln"},
     "sammle"},
    {"photograph", "photographs",
     {"fotografiere", "fotografierst", "fotografiert", "fotografieren", "fotografieren"},
     "fotografier"},
    {"recognize", "recognizes", {"erkenne", "erkennst", "erkennt", "erkennen", "erkennen"},
     NULL},
    {"admire", "admires",
     {"bewundere", "bewunderst", "bewundert", "bewundern", "bewundern"}, NULL},
};
_Static_assert(sizeof GRAMMAR_VERBS / sizeof GRAMMAR_VERBS[0] == GRAMMAR_N_VERBS,
               "GRAMMAR_N_VERBS");

const GrammarName GRAMMAR_NAMES[] = {
    {"Anna", GRAMMAR_SEX_F}, {"Bob", GRAMMAR_SEX_M}, {"Maria", GRAMMAR_SEX_F},
    {"Peter", GRAMMAR_SEX_M}, {"Lisa", GRAMMAR_SEX_F}, {"Tom", GRAMMAR_SEX_M},
    {"Emma", GRAMMAR_SEX_F}, {"Paul", GRAMMAR_SEX_M}, {"Laura", GRAMMAR_SEX_F},
    {"Max", GRAMMAR_SEX_M}, {"Sarah", GRAMMAR_SEX_F}, {"David", GRAMMAR_SEX_M},
    {"Julia", GRAMMAR_SEX_F}, {"Daniel", GRAMMAR_SEX_M}, {"Sophie", GRAMMAR_SEX_F},
    {"Thomas", GRAMMAR_SEX_M}, {"Lena", GRAMMAR_SEX_F}, {"Michael", GRAMMAR_SEX_M},
    {"Clara", GRAMMAR_SEX_F}, {"Felix", GRAMMAR_SEX_M}, {"Nina", GRAMMAR_SEX_F},
    {"Jonas", GRAMMAR_SEX_M}, {"Eva", GRAMMAR_SEX_F}, {"Lukas", GRAMMAR_SEX_M},
    {"Mia", GRAMMAR_SEX_F}, {"Leon", GRAMMAR_SEX_M}, {"Hannah", GRAMMAR_SEX_F},
    {"Ben", GRAMMAR_SEX_M}, {"Lea", GRAMMAR_SEX_F}, {"Jan", GRAMMAR_SEX_M},
    {"Sara", GRAMMAR_SEX_F}, {"Simon", GRAMMAR_SEX_M},
};
_Static_assert(sizeof GRAMMAR_NAMES / sizeof GRAMMAR_NAMES[0] == GRAMMAR_N_NAMES,
               "GRAMMAR_N_NAMES");

const GrammarPronoun GRAMMAR_PRONOUNS[] = {
    {"i", "me", "me", "ich", "mich", "mir", GRAMMAR_1SG, GRAMMAR_SEX_NONE},
    {"you", "you", "you", "du", "dich", "dir", GRAMMAR_2SG, GRAMMAR_SEX_NONE},
    {"he", "him", "him", "er", "ihn", "ihm", GRAMMAR_3SG, GRAMMAR_SEX_M},
    {"she", "her", "her", "sie", "sie", "ihr", GRAMMAR_3SG, GRAMMAR_SEX_F},
    {"it", "it", NULL, "es", "es", NULL, GRAMMAR_3SG, GRAMMAR_SEX_NONE},
    {"we", "us", "us", "wir", "uns", "uns", GRAMMAR_1PL, GRAMMAR_SEX_NONE},
    {"they", "them", "them", "sie", "sie", "ihnen", GRAMMAR_3PL, GRAMMAR_SEX_NONE},
};
_Static_assert(sizeof GRAMMAR_PRONOUNS / sizeof GRAMMAR_PRONOUNS[0] == GRAMMAR_N_PRONOUNS,
               "GRAMMAR_N_PRONOUNS");

/* The verbs with forms of their own for an animal subject, by English. */
static const struct {
    const char *en, *sg, *pl;
} ANIMAL_VERBS[] = {{"eat", "frisst", "fressen"}};

const char *grammar_verb_animal(int verb, int plural)
{
    assert(verb >= 0 && verb < GRAMMAR_N_VERBS);
    for (size_t i = 0; i < sizeof ANIMAL_VERBS / sizeof ANIMAL_VERBS[0]; i++)
        if (strcmp(ANIMAL_VERBS[i].en, GRAMMAR_VERBS[verb].en) == 0)
            return plural ? ANIMAL_VERBS[i].pl : ANIMAL_VERBS[i].sg;
    return NULL;
}

/* The adjectives tagged temp, by English. */
static const char *const FELT_ADJECTIVES[] = {"hot", "cold", "warm", "cool"};

int grammar_adjective_is_felt(int adj)
{
    assert(adj >= 0 && adj < GRAMMAR_N_ADJECTIVES);
    for (size_t i = 0; i < sizeof FELT_ADJECTIVES / sizeof FELT_ADJECTIVES[0]; i++)
        if (strcmp(FELT_ADJECTIVES[i], GRAMMAR_ADJECTIVES[adj].en) == 0)
            return 1;
    return 0;
}

const char *const GRAMMAR_BE[GRAMMAR_PERSONS] = {"am", "are", "is", "are", "are"};
static const char *const DO_FORMS[GRAMMAR_PERSONS] = {"do", "do", "does", "do", "do"};

const char *const GRAMMAR_DET_EN[GRAMMAR_DETS] = {"", "the", "this", "a", "no", "my",
                                                  "your", "his", "her", "our", "their"};

/* The closed-class words that are not pronouns or determiners. */
static const char *const FUNCTION_WORDS[] = {"these", "an", "very", "and", "not", "do",
                                             "does", "am", "is", "are", "with", "in"};

static const char *const PERSON_NAMES[GRAMMAR_PERSONS] = {
    "1st person singular", "2nd person singular", "3rd person singular",
    "1st person plural", "3rd person plural"};

uint64_t grammar_lexicon_fnv1a64(void)
{
    return LEXICON_FNV1A64;
}

/* The first bytes compared here first: most words differ there, and the closed words
 * are looked up for every token of every finished translation. */
static int streq(const char *a, const char *b)
{
    return a != NULL && b != NULL && a[0] == b[0] && strcmp(a, b) == 0;
}

/* The forms of the open classes in sort order, each with the index of its word (the first
 * word of the table that has the form, as a scan of the table would find it), so that a
 * lookup is a binary search over one contiguous array. The translator checks every
 * sentence it translates; with 301 nouns, scans of the tables took about 2.5 times as
 * long as these searches (some 430 against 175 ns for a token's four lookups, on the
 * tokens of data/test.tsv). */
typedef struct {
    const char *form; /* in token space; strcmp order (names: lower case) */
    short index;      /* into the word's table */
} WordIndex;

/* The nouns' singulars and plurals. */
static const WordIndex NOUN_FORMS[] = {
    {"actor", 49}, {"actors", 49}, {"animal", 93}, {"animals", 93}, {"answer", 227},
    {"answers", 227}, {"apartment", 199}, {"apartments", 199}, {"apple", 10},
    {"apples", 10}, {"architect", 59}, {"architects", 59}, {"arm", 257}, {"arms", 257},
    {"artist", 50}, {"artists", 50}, {"aunt", 34}, {"aunts", 34}, {"babies", 23},
    {"baby", 23}, {"bag", 135}, {"bags", 135}, {"baker", 47}, {"bakers", 47}, {"ball", 149},
    {"balls", 149}, {"banana", 94}, {"bananas", 94}, {"bank", 193}, {"banks", 193},
    {"basket", 280}, {"baskets", 280}, {"bathroom", 185}, {"bathrooms", 185},
    {"beach", 207}, {"beaches", 207}, {"bean", 271}, {"beans", 271}, {"bear", 77},
    {"bears", 77}, {"bed", 128}, {"beds", 128}, {"bee", 83}, {"beer", 124}, {"bees", 83},
    {"bike", 175}, {"bikes", 175}, {"bird", 69}, {"birds", 69}, {"birthday", 244},
    {"birthdays", 244}, {"blanket", 159}, {"blankets", 159}, {"boat", 178}, {"boats", 178},
    {"book", 4}, {"books", 4}, {"boss", 41}, {"bosses", 41}, {"bottle", 136},
    {"bottles", 136}, {"box", 134}, {"boxes", 134}, {"boy", 22}, {"boys", 22},
    {"bread", 18}, {"bridge", 210}, {"bridges", 210}, {"brother", 25}, {"brothers", 25},
    {"bus", 176}, {"buses", 176}, {"butter", 113}, {"butterflies", 84}, {"butterfly", 84},
    {"cake", 104}, {"cakes", 104}, {"camel", 267}, {"camels", 267}, {"camera", 287},
    {"cameras", 287}, {"candle", 160}, {"candles", 160}, {"car", 9}, {"carpet", 292},
    {"carpets", 292}, {"carrot", 101}, {"carrots", 101}, {"cars", 9}, {"castle", 212},
    {"castles", 212}, {"cat", 3}, {"cats", 3}, {"chair", 127}, {"chairs", 127},
    {"cheese", 110}, {"cherries", 98}, {"cherry", 98}, {"chicken", 68}, {"chickens", 68},
    {"child", 7}, {"children", 7}, {"chocolate", 116}, {"church", 192}, {"churches", 192},
    {"cinema", 197}, {"cinemas", 197}, {"cities", 13}, {"city", 13}, {"clock", 133},
    {"clocks", 133}, {"cloud", 222}, {"clouds", 222}, {"coat", 168}, {"coats", 168},
    {"coffee", 121}, {"coin", 293}, {"coins", 293}, {"colleague", 42}, {"colleagues", 42},
    {"computer", 147}, {"computers", 147}, {"cookie", 105}, {"cookies", 105},
    {"countries", 214}, {"country", 214}, {"cousin", 261}, {"cousins", 261}, {"cow", 65},
    {"cows", 65}, {"crocodile", 268}, {"crocodiles", 268}, {"cucumber", 274},
    {"cucumbers", 274}, {"cup", 137}, {"cupboard", 132}, {"cupboards", 132}, {"cups", 137},
    {"customer", 53}, {"customers", 53}, {"dancer", 52}, {"dancers", 52}, {"daughter", 30},
    {"daughters", 30}, {"desk", 290}, {"desks", 290}, {"doctor", 39}, {"doctors", 39},
    {"dog", 2}, {"dogs", 2}, {"doll", 295}, {"dolls", 295}, {"dolphin", 266},
    {"dolphins", 266}, {"donkey", 85}, {"donkeys", 85}, {"door", 21}, {"doors", 21},
    {"dream", 240}, {"dreams", 240}, {"dress", 165}, {"dresses", 165}, {"driver", 44},
    {"drivers", 44}, {"duck", 72}, {"ducks", 72}, {"ear", 255}, {"ears", 255}, {"egg", 103},
    {"eggs", 103}, {"elephant", 75}, {"elephants", 75}, {"example", 0}, {"examples", 0},
    {"eye", 252}, {"eyes", 252}, {"face", 259}, {"faces", 259}, {"farm", 213},
    {"farmer", 45}, {"farmers", 45}, {"farms", 213}, {"father", 28}, {"fathers", 28},
    {"feet", 256}, {"field", 216}, {"fields", 216}, {"floor", 218}, {"floors", 218},
    {"flour", 276}, {"flower", 161}, {"flowers", 161}, {"foot", 256}, {"forest", 203},
    {"forests", 203}, {"fork", 140}, {"forks", 140}, {"fox", 79}, {"foxes", 79},
    {"fridge", 220}, {"fridges", 220}, {"friend", 19}, {"friends", 19}, {"frog", 80},
    {"frogs", 80}, {"fruit", 118}, {"game", 249}, {"games", 249}, {"garden", 16},
    {"gardens", 16}, {"gentleman", 36}, {"gentlemen", 36}, {"gift", 162}, {"gifts", 162},
    {"giraffe", 86}, {"giraffes", 86}, {"girl", 8}, {"girls", 8}, {"glove", 173},
    {"gloves", 173}, {"goat", 67}, {"goats", 67}, {"grandfather", 32}, {"grandfathers", 32},
    {"grandmother", 31}, {"grandmothers", 31}, {"grape", 270}, {"grapes", 270},
    {"grass", 223}, {"guest", 61}, {"guests", 61}, {"guitar", 288}, {"guitars", 288},
    {"hamster", 263}, {"hamsters", 263}, {"hand", 250}, {"hands", 250}, {"harbor", 299},
    {"harbors", 299}, {"hat", 167}, {"hats", 167}, {"head", 251}, {"heads", 251},
    {"honey", 117}, {"horse", 64}, {"horses", 64}, {"hospital", 191}, {"hospitals", 191},
    {"hotel", 190}, {"hotels", 190}, {"house", 1}, {"houses", 1}, {"idea", 228},
    {"ideas", 228}, {"island", 208}, {"islands", 208}, {"jacket", 169}, {"jackets", 169},
    {"job", 238}, {"jobs", 238}, {"joke", 241}, {"jokes", 241}, {"journalist", 58},
    {"journalists", 58}, {"juice", 123}, {"key", 148}, {"keys", 148}, {"king", 62},
    {"kings", 62}, {"kitchen", 184}, {"kitchens", 184}, {"kitten", 92}, {"kittens", 92},
    {"knife", 139}, {"knives", 139}, {"ladies", 35}, {"lady", 35}, {"lake", 204},
    {"lakes", 204}, {"lamp", 130}, {"lamps", 130}, {"language", 235}, {"languages", 235},
    {"lawyer", 60}, {"lawyers", 60}, {"leg", 258}, {"legs", 258}, {"lemon", 96},
    {"lemonade", 126}, {"lemons", 96}, {"letter", 15}, {"letters", 15}, {"libraries", 196},
    {"library", 196}, {"lion", 73}, {"lions", 73}, {"magazine", 152}, {"magazines", 152},
    {"man", 5}, {"map", 153}, {"maps", 153}, {"market", 297}, {"markets", 297},
    {"meat", 111}, {"melon", 273}, {"melons", 273}, {"men", 5}, {"message", 248},
    {"messages", 248}, {"mice", 70}, {"milk", 120}, {"mirror", 157}, {"mirrors", 157},
    {"money", 243}, {"monkey", 76}, {"monkeys", 76}, {"mother", 27}, {"mothers", 27},
    {"mountain", 209}, {"mountains", 209}, {"mouse", 70}, {"mouth", 254}, {"mouths", 254},
    {"movie", 233}, {"movies", 233}, {"museum", 195}, {"museums", 195}, {"mushroom", 275},
    {"mushrooms", 275}, {"music", 234}, {"name", 230}, {"names", 230}, {"necklace", 284},
    {"necklaces", 284}, {"neighbor", 40}, {"neighbors", 40}, {"newspaper", 151},
    {"newspapers", 151}, {"nose", 253}, {"noses", 253}, {"number", 236}, {"numbers", 236},
    {"nut", 109}, {"nuts", 109}, {"office", 186}, {"offices", 186}, {"oil", 277},
    {"onion", 102}, {"onions", 102}, {"owl", 89}, {"owls", 89}, {"pan", 279}, {"pans", 279},
    {"paper", 294}, {"park", 201}, {"parks", 201}, {"parties", 245}, {"party", 245},
    {"peach", 272}, {"peaches", 272}, {"pear", 95}, {"pears", 95}, {"pen", 142},
    {"pencil", 143}, {"pencils", 143}, {"penguin", 88}, {"penguins", 88}, {"pens", 142},
    {"people", 24}, {"person", 24}, {"phone", 146}, {"phones", 146}, {"photo", 145},
    {"photos", 145}, {"piano", 289}, {"pianos", 289}, {"picture", 144}, {"pictures", 144},
    {"pig", 66}, {"pigs", 66}, {"pillow", 158}, {"pillows", 158}, {"pilot", 55},
    {"pilots", 55}, {"plan", 239}, {"plane", 180}, {"planes", 180}, {"plans", 239},
    {"plate", 138}, {"plates", 138}, {"player", 51}, {"players", 51}, {"playground", 298},
    {"playgrounds", 298}, {"pot", 278}, {"potato", 100}, {"potatoes", 100}, {"pots", 278},
    {"president", 57}, {"presidents", 57}, {"problem", 237}, {"problems", 237},
    {"pupil", 38}, {"pupils", 38}, {"puppies", 91}, {"puppy", 91}, {"queen", 63},
    {"queens", 63}, {"question", 226}, {"questions", 226}, {"rabbit", 71}, {"rabbits", 71},
    {"radio", 285}, {"radios", 285}, {"rain", 225}, {"restaurant", 189},
    {"restaurants", 189}, {"rice", 112}, {"ring", 283}, {"rings", 283}, {"river", 205},
    {"rivers", 205}, {"roof", 219}, {"roofs", 219}, {"room", 183}, {"rooms", 183},
    {"salad", 107}, {"salads", 107}, {"salt", 115}, {"sausage", 108}, {"sausages", 108},
    {"scarf", 174}, {"scarves", 174}, {"school", 17}, {"schools", 17}, {"sea", 206},
    {"seas", 206}, {"secret", 242}, {"secrets", 242}, {"shark", 265}, {"sharks", 265},
    {"shelf", 291}, {"shelves", 291}, {"ship", 179}, {"ships", 179}, {"shirt", 164},
    {"shirts", 164}, {"shoe", 166}, {"shoes", 166}, {"shop", 187}, {"shops", 187},
    {"singer", 43}, {"singers", 43}, {"sister", 26}, {"sisters", 26}, {"skirt", 171},
    {"skirts", 171}, {"snail", 269}, {"snails", 269}, {"snake", 81}, {"snakes", 81},
    {"snow", 224}, {"sock", 170}, {"socks", 170}, {"sofa", 131}, {"sofas", 131},
    {"soldier", 56}, {"soldiers", 56}, {"son", 29}, {"song", 232}, {"songs", 232},
    {"sons", 29}, {"soup", 106}, {"soups", 106}, {"spider", 82}, {"spiders", 82},
    {"spoon", 141}, {"spoons", 141}, {"squirrel", 262}, {"squirrels", 262}, {"star", 221},
    {"stars", 221}, {"station", 194}, {"stations", 194}, {"stone", 163}, {"stones", 163},
    {"stories", 229}, {"story", 229}, {"strawberries", 97}, {"strawberry", 97},
    {"street", 20}, {"streets", 20}, {"student", 37}, {"students", 37}, {"sugar", 114},
    {"suitcase", 281}, {"suitcases", 281}, {"supermarket", 188}, {"supermarkets", 188},
    {"sweater", 172}, {"sweaters", 172}, {"table", 11}, {"tables", 11}, {"taxi", 182},
    {"taxis", 182}, {"tea", 122}, {"teacher", 12}, {"teachers", 12}, {"teeth", 260},
    {"television", 286}, {"televisions", 286}, {"tent", 296}, {"tents", 296}, {"test", 247},
    {"tests", 247}, {"theater", 198}, {"theaters", 198}, {"ticket", 154}, {"tickets", 154},
    {"tiger", 74}, {"tigers", 74}, {"tomato", 99}, {"tomatoes", 99}, {"tooth", 260},
    {"tourist", 54}, {"tourists", 54}, {"towel", 156}, {"towels", 156}, {"tower", 211},
    {"towers", 211}, {"toy", 150}, {"toys", 150}, {"train", 177}, {"trains", 177},
    {"tree", 14}, {"trees", 14}, {"trip", 246}, {"trips", 246}, {"truck", 181},
    {"trucks", 181}, {"turtle", 90}, {"turtles", 90}, {"umbrella", 155}, {"umbrellas", 155},
    {"uncle", 33}, {"uncles", 33}, {"vase", 300}, {"vases", 300}, {"village", 200},
    {"villages", 200}, {"waiter", 48}, {"waiters", 48}, {"wall", 217}, {"wallet", 282},
    {"wallets", 282}, {"walls", 217}, {"water", 119}, {"whale", 264}, {"whales", 264},
    {"window", 129}, {"windows", 129}, {"wine", 125}, {"wolf", 78}, {"wolves", 78},
    {"woman", 6}, {"women", 6}, {"word", 231}, {"words", 231}, {"world", 215},
    {"worlds", 215}, {"writer", 46}, {"writers", 46}, {"zebra", 87}, {"zebras", 87},
    {"zoo", 202}, {"zoos", 202},
};
/* The adjectives. */
static const WordIndex ADJECTIVE_FORMS[] = {
    {"angry", 28}, {"bad", 84}, {"beautiful", 6}, {"big", 0}, {"black", 11}, {"blue", 8},
    {"boring", 58}, {"brave", 37}, {"bright", 63}, {"brown", 13}, {"busy", 41},
    {"cheap", 52}, {"clean", 49}, {"clever", 33}, {"cold", 20}, {"comfortable", 80},
    {"cool", 22}, {"correct", 82}, {"cute", 91}, {"dangerous", 78}, {"dark", 62},
    {"delicious", 68}, {"difficult", 56}, {"dirty", 50}, {"dry", 76}, {"easy", 55},
    {"empty", 65}, {"expensive", 51}, {"famous", 43}, {"fast", 17}, {"fat", 48},
    {"flat", 74}, {"fresh", 66}, {"friendly", 32}, {"full", 64}, {"funny", 44}, {"good", 4},
    {"gray", 14}, {"great", 87}, {"green", 9}, {"happy", 23}, {"hard", 72}, {"healthy", 30},
    {"heavy", 53}, {"hot", 19}, {"hungry", 26}, {"important", 59}, {"interesting", 57},
    {"lazy", 35}, {"light", 54}, {"long", 15}, {"loud", 60}, {"modern", 79}, {"new", 3},
    {"nice", 31}, {"old", 2}, {"polite", 42}, {"poor", 40}, {"pretty", 90}, {"proud", 38},
    {"quiet", 61}, {"red", 5}, {"rich", 39}, {"round", 73}, {"sad", 24}, {"safe", 77},
    {"salty", 70}, {"short", 16}, {"shy", 36}, {"sick", 29}, {"slow", 18}, {"small", 1},
    {"soft", 71}, {"sour", 69}, {"strange", 88}, {"strong", 45}, {"stupid", 34},
    {"sweet", 67}, {"tame", 93}, {"terrible", 86}, {"thin", 47}, {"thirsty", 27},
    {"tired", 25}, {"true", 83}, {"ugly", 89}, {"warm", 21}, {"weak", 46}, {"wet", 75},
    {"white", 12}, {"wild", 92}, {"wonderful", 85}, {"wrong", 81}, {"yellow", 10},
    {"young", 7},
};
/* The verbs' base and 3rd person singular forms. */
static const WordIndex VERB_FORMS[] = {
    {"admire", 86}, {"admires", 86}, {"ask", 15}, {"asks", 15}, {"bite", 75}, {"bites", 75},
    {"bring", 20}, {"brings", 20}, {"build", 39}, {"builds", 39}, {"buy", 4}, {"buys", 4},
    {"call", 17}, {"calls", 17}, {"catch", 46}, {"catches", 46}, {"celebrate", 71},
    {"celebrates", 71}, {"change", 74}, {"changes", 74}, {"choose", 56}, {"chooses", 56},
    {"close", 24}, {"closes", 24}, {"collect", 83}, {"collects", 83}, {"cook", 26},
    {"cooks", 26}, {"cross", 81}, {"crosses", 81}, {"cut", 50}, {"cuts", 50},
    {"describe", 67}, {"describes", 67}, {"draw", 28}, {"draws", 28}, {"drink", 9},
    {"drinks", 9}, {"drive", 59}, {"drives", 59}, {"eat", 5}, {"eats", 5}, {"enjoy", 70},
    {"enjoys", 70}, {"explain", 68}, {"explains", 68}, {"feed", 41}, {"feeds", 41},
    {"fetch", 80}, {"fetches", 80}, {"fill", 51}, {"fills", 51}, {"find", 6}, {"finds", 6},
    {"forget", 45}, {"forgets", 45}, {"get", 36}, {"gets", 36}, {"greet", 61},
    {"greets", 61}, {"has", 1}, {"hate", 11}, {"hates", 11}, {"have", 1}, {"hear", 14},
    {"hears", 14}, {"hide", 66}, {"hides", 66}, {"hold", 22}, {"holds", 22}, {"hug", 43},
    {"hugs", 43}, {"hunt", 76}, {"hunts", 76}, {"keep", 69}, {"keeps", 69}, {"kiss", 42},
    {"kisses", 42}, {"know", 12}, {"knows", 12}, {"learn", 31}, {"learns", 31},
    {"leave", 82}, {"leaves", 82}, {"lift", 79}, {"lifts", 79}, {"like", 10}, {"likes", 10},
    {"lose", 52}, {"loses", 52}, {"love", 8}, {"loves", 8}, {"make", 38}, {"makes", 38},
    {"marries", 62}, {"marry", 62}, {"meet", 18}, {"meets", 18}, {"miss", 53},
    {"misses", 53}, {"need", 7}, {"needs", 7}, {"open", 23}, {"opens", 23}, {"order", 54},
    {"orders", 54}, {"paint", 27}, {"paints", 27}, {"pay", 34}, {"pays", 34},
    {"photograph", 84}, {"photographs", 84}, {"plant", 58}, {"plants", 58}, {"play", 29},
    {"plays", 29}, {"practice", 72}, {"practices", 72}, {"protect", 65}, {"protects", 65},
    {"pull", 49}, {"pulls", 49}, {"push", 48}, {"pushes", 48}, {"read", 2}, {"reads", 2},
    {"recognize", 85}, {"recognizes", 85}, {"repair", 40}, {"repairs", 40}, {"save", 78},
    {"saves", 78}, {"see", 0}, {"sees", 0}, {"sell", 33}, {"sells", 33}, {"send", 35},
    {"sends", 35}, {"show", 57}, {"shows", 57}, {"sing", 30}, {"sings", 30}, {"smell", 64},
    {"smells", 64}, {"steal", 77}, {"steals", 77}, {"take", 19}, {"takes", 19},
    {"teach", 32}, {"teaches", 32}, {"throw", 47}, {"throws", 47}, {"touch", 63},
    {"touches", 63}, {"translate", 73}, {"translates", 73}, {"tries", 55}, {"try", 55},
    {"understand", 44}, {"understands", 44}, {"use", 37}, {"uses", 37}, {"visit", 16},
    {"visits", 16}, {"wake", 60}, {"wakes", 60}, {"want", 13}, {"wants", 13}, {"wash", 25},
    {"washes", 25}, {"wear", 21}, {"wears", 21}, {"write", 3}, {"writes", 3},
};
/* The names, lower case (they are matched without regard to case). */
static const WordIndex NAME_FORMS[] = {
    {"anna", 0}, {"ben", 27}, {"bob", 1}, {"clara", 18}, {"daniel", 13}, {"david", 11},
    {"emma", 6}, {"eva", 22}, {"felix", 19}, {"hannah", 26}, {"jan", 29}, {"jonas", 21},
    {"julia", 12}, {"laura", 8}, {"lea", 28}, {"lena", 16}, {"leon", 25}, {"lisa", 4},
    {"lukas", 23}, {"maria", 2}, {"max", 9}, {"mia", 24}, {"michael", 17}, {"nina", 20},
    {"paul", 7}, {"peter", 3}, {"sara", 30}, {"sarah", 10}, {"simon", 31}, {"sophie", 14},
    {"thomas", 15}, {"tom", 5},
};

/* form against token as strcmp, or with fold as strcasecmp (without regard to ASCII case).
 * The first bytes first: most forms differ there. */
static int form_cmp(const char *form, const char *token, int fold)
{
    if (fold)
        return strcasecmp(form, token);
    const int c = (unsigned char)form[0] - (unsigned char)token[0];
    return c != 0 ? c : strcmp(form, token);
}

/* The word of token in index[0..n), or -1; fold: compare without regard to ASCII case. */
static int index_find(const WordIndex *index, int n, const char *token, int fold)
{
    if (token == NULL)
        return -1;
    int lo = 0, hi = n; /* the first form not below token is in [lo, hi] */
    while (lo < hi) {
        const int mid = lo + (hi - lo) / 2;
        if (form_cmp(index[mid].form, token, fold) < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < n && form_cmp(index[lo].form, token, fold) == 0 ? index[lo].index : -1;
}

#define INDEX_FIND(index, token, fold) \
    index_find(index, (int)(sizeof(index) / sizeof((index)[0])), token, fold)

int grammar_find_noun(const char *token, int *plural)
{
    const int i = INDEX_FIND(NOUN_FORMS, token, 0);
    if (i >= 0)
        *plural = !streq(token, GRAMMAR_NOUNS[i].en_sg);
    return i;
}

int grammar_find_adjective(const char *token)
{
    return INDEX_FIND(ADJECTIVE_FORMS, token, 0);
}

int grammar_find_verb(const char *token, int *third)
{
    const int i = INDEX_FIND(VERB_FORMS, token, 0);
    if (i >= 0)
        *third = streq(token, GRAMMAR_VERBS[i].en_3sg);
    return i;
}

int grammar_find_name(const char *token)
{
    return INDEX_FIND(NAME_FORMS, token, 1);
}

/* 1 when w is a pronoun form, a determiner or another closed-class word. */
static int is_closed_word(const char *w)
{
    for (int i = 0; i < GRAMMAR_N_PRONOUNS; i++)
        if (streq(w, GRAMMAR_PRONOUNS[i].subj) || streq(w, GRAMMAR_PRONOUNS[i].obj))
            return 1;
    for (int d = GRAMMAR_DET_THE; d < GRAMMAR_DETS; d++)
        if (streq(w, GRAMMAR_DET_EN[d]))
            return 1;
    for (size_t i = 0; i < sizeof FUNCTION_WORDS / sizeof FUNCTION_WORDS[0]; i++)
        if (streq(w, FUNCTION_WORDS[i]))
            return 1;
    return 0;
}

/* ---------------------------------------------------------------------------------------
 * The lexer: every word looked up once, commas and the final mark taken off.
 * ------------------------------------------------------------------------------------- */

/* Word tokens one sentence may have: 30 written words, each of which may be a contraction
 * the tokenizer expanded into two. Beyond that, a sentence is too long anyway. */
enum { MAX_TOKS = 2 * GRAMMAR_MAX_WORDS };

typedef struct {
    const char *w;   /* the token */
    int src;         /* its index in the caller's tokens */
    int comma;       /* the index of a comma token right after it, or -1 */
    int written_not; /* GRAMMAR_TOKEN_WRITTEN_NOT */
    int is_name;     /* 1: a name (of the lexicon, or flagged) */
    int name;        /* the name's index, or GRAMMAR_NAME_OTHER */
    int noun, plural; /* noun index or -1; 1 for its plural form */
    int adj;          /* adjective index or -1 */
    int verb, third;  /* verb index or -1; 1 for the 3rd person singular form */
} Tok;

typedef struct {
    Tok tok[MAX_TOKS];
    int n;         /* word tokens */
    int ntokens;   /* the caller's tokens, commas and the final mark included */
    char punct;    /* the final '.', '?', '!' or 0 */
    int punct_src; /* its index in the caller's tokens, or -1 */
} Lexed;

/* The token past the last word: no word at all. */
static const Tok END_TOK = {"", -1, -1, 0, 0, GRAMMAR_NAME_OTHER, -1, 0, -1, -1, 0};

/* Fills v as a failure over the caller's tokens [from, to); is -1. */
static int verdict_fail(GrammarVerdict *v, int from, int to, int reached, const char *fmt,
                        ...)
{
    v->in_grammar = 0;
    v->from = from;
    v->to = to > from ? to : from + 1;
    v->reached = reached;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(v->reason, sizeof v->reason, fmt, ap);
    va_end(ap);
    return -1;
}

/* 1 when token ends in a possessive 's (' or ’) after at least one letter; *stem_len is
 * the length before it. */
static int has_possessive_s(const char *token, size_t *stem_len)
{
    size_t n = strlen(token);
    if (n >= 3 && strcmp(token + n - 2, "'s") == 0) {
        *stem_len = n - 2;
        return 1;
    }
    if (n >= 5 && strcmp(token + n - 4, "\xE2\x80\x99s") == 0) {
        *stem_len = n - 4;
        return 1;
    }
    return 0;
}

/* Why token i, which is no word of the grammar, is refused. */
static int lex_refuse(const char *const *tokens, int i, int flagged, int words_before, int n,
                      GrammarVerdict *v)
{
    const char *w = tokens[i];
    size_t stem_len;
    if (has_possessive_s(w, &stem_len)) {
        char stem[64];
        int unused;
        snprintf(stem, sizeof stem, "%.*s", (int)stem_len, w);
        if (flagged || grammar_find_name(stem) >= 0 || grammar_find_noun(stem, &unused) >= 0)
            return verdict_fail(v, i, i + 1, i, "the grammar has no possessive 's (it says "
                                "his, her, their …)");
    }
    if (tokenizer_is_punctuation(w)) {
        if (strchr(".?!", w[0]) != NULL && w[1] == '\0') {
            if (!words_before)
                return verdict_fail(v, i, i + 1, i, "no words before \"%s\"", w);
            int j = i + 1;
            while (j < n && tokens[j][0] != '\0' && strchr(".?!", tokens[j][0]) != NULL &&
                   tokens[j][1] == '\0')
                j++;
            if (j == n)
                return verdict_fail(v, i + 1, n, i, "one punctuation mark at the end, not "
                                    "several");
            return verdict_fail(v, i, i + 1, i, "\"%s\" only at the end: one sentence at a "
                                "time", w);
        }
        return verdict_fail(v, i, i + 1, i, "a punctuation mark the grammar does not have");
    }
    return verdict_fail(v, i, i + 1, i, "a word the grammar does not have");
}

/* The words an English spelling of the tokens needs at least: a contraction the tokenizer
 * expanded ("do not" ← "don't") may have been one word. */
static int contractible(const char *a, const char *b)
{
    static const char *const PAIRS[][2] = {
        {"do", "not"}, {"does", "not"}, {"is", "not"}, {"are", "not"}, {"i", "am"},
        {"you", "are"}, {"he", "is"}, {"she", "is"}, {"it", "is"}, {"we", "are"},
        {"they", "are"}};
    for (size_t i = 0; i < sizeof PAIRS / sizeof PAIRS[0]; i++)
        if (streq(a, PAIRS[i][0]) && streq(b, PAIRS[i][1]))
            return 1;
    return 0;
}

/* Looks w up in the tables into t's name, noun, adjective and verb (a name is nothing
 * else); 1 when w is a word of the grammar: a form of the tables or a closed-class word.
 * The one definition of a word, for the lexer and grammar_is_word. */
static int lex_lookup(const char *w, Tok *t)
{
    t->name = grammar_find_name(w);
    t->is_name = t->name >= 0;
    if (t->is_name)
        return 1;
    t->noun = grammar_find_noun(w, &t->plural);
    t->adj = grammar_find_adjective(w);
    t->verb = grammar_find_verb(w, &t->third);
    return t->noun >= 0 || t->adj >= 0 || t->verb >= 0 || is_closed_word(w);
}

int grammar_is_word(const char *token)
{
    Tok unused = END_TOK;
    return token != NULL && lex_lookup(token, &unused);
}

/* Looks every token up; 0, or -1 with v filled. flags: GRAMMAR_TOKEN_* sets, or with
 * names_only nonzero-is-a-name flags (grammar_check's is_name); NULL for none. */
static int lex(const char *const *tokens, const unsigned char *flags, int names_only, int n,
               Lexed *lx, GrammarVerdict *v)
{
    lx->n = 0;
    lx->ntokens = n;
    lx->punct = 0;
    lx->punct_src = -1;
    int words = 0; /* written words at least (contractions joined) */
    for (int i = 0; i < n; i++) {
        const char *w = tokens[i];
        int flag = flags == NULL ? 0 : !names_only ? flags[i]
                                       : flags[i] != 0 ? GRAMMAR_TOKEN_NAME : 0;
        if (streq(w, ",")) {
            Tok *prev = lx->n > 0 ? &lx->tok[lx->n - 1] : NULL;
            if (prev == NULL || prev->comma >= 0 || (i + 1 < n && streq(tokens[i + 1], ",")))
                return verdict_fail(v, i, i + 1, i, "a comma only before the \"and\" that "
                                    "joins two clauses");
            prev->comma = i;
            continue;
        }
        if (i == n - 1 && lx->n > 0 && (streq(w, ".") || streq(w, "?") || streq(w, "!"))) {
            lx->punct = w[0];
            lx->punct_src = i;
            continue;
        }
        int is_punct = tokenizer_is_punctuation(w);
        int flagged = (flag & GRAMMAR_TOKEN_NAME) != 0 && !is_punct;
        size_t stem_len;
        Tok look = END_TOK;
        if ((!flagged || has_possessive_s(w, &stem_len)) && !lex_lookup(w, &look))
            return lex_refuse(tokens, i, flagged, lx->n > 0, n, v);
        int pairs_up = lx->n > 0 && contractible(lx->tok[lx->n - 1].w, w) &&
                       (lx->n < 2 || !contractible(lx->tok[lx->n - 2].w, lx->tok[lx->n - 1].w));
        /* A word that pairs up with the one before (greedily, left to right) adds none. */
        if (!pairs_up)
            words++;
        if (words > GRAMMAR_MAX_WORDS || lx->n == MAX_TOKS)
            return verdict_fail(v, i, n, i, "longer than the grammar's sentences (at most "
                                "%d words)", GRAMMAR_MAX_WORDS);
        Tok *t = &lx->tok[lx->n++];
        *t = flagged ? END_TOK : look;
        t->w = w;
        t->src = i;
        t->written_not = (flag & GRAMMAR_TOKEN_WRITTEN_NOT) != 0;
        t->is_name |= flagged;
    }
    if (n == 0) {
        verdict_fail(v, 0, 1, 0, "an empty sentence");
        v->to = 0; /* no token to point at */
        return -1;
    }
    assert(lx->n > 0); /* a mark before any word is refused above */
    return 0;
}

/* ---------------------------------------------------------------------------------------
 * The parser.
 * ------------------------------------------------------------------------------------- */

typedef enum { ROLE_SUBJ, ROLE_OBJ, ROLE_WITH, ROLE_PRED, ROLE_IN } Role;

typedef struct {
    const Lexed *lx;
    int p;              /* the cursor: index into lx->tok */
    GrammarSentence *s;
    unsigned flip;      /* bit d: take the other reading at coordination choice d */
    int choices;        /* coordination choices met so far */
    int coord_from;     /* the first pair of noun phrases joined by "and" in this reading: */
    int coord_to;       /* its word tokens [coord_from, coord_to); coord_from -1 if none */
    int subj_from;      /* the word tokens [subj_from, subj_to) of the subject last read */
    int subj_to;
    int failed;         /* 1: fail holds a failure */
    int fail_reached;   /* fail's cursor, in lx->tok */
    GrammarVerdict fail; /* the failure that read farthest (the first of equals) */
} Parser;

static const Tok *tok_at(const Parser *ps, int off)
{
    int i = ps->p + off;
    return i >= 0 && i < ps->lx->n ? &ps->lx->tok[i] : &END_TOK;
}

static const char *en_at(const Parser *ps, int off)
{
    return tok_at(ps, off)->w;
}

static int en_is(const Parser *ps, const char *w)
{
    return streq(en_at(ps, 0), w);
}

static int en_is_at(const Parser *ps, int off, const char *w)
{
    return streq(en_at(ps, off), w);
}

static int is_be(const char *w)
{
    return streq(w, "am") || streq(w, "is") || streq(w, "are");
}

/* The caller's index of word token i; past the words, the final mark, and past that
 * the caller's n. */
static int src_of(const Lexed *lx, int i)
{
    if (i < lx->n)
        return lx->tok[i].src;
    return i == lx->n && lx->punct_src >= 0 ? lx->punct_src : lx->ntokens;
}

/* Records a failure over the caller's tokens [from, to), having read up to word token
 * reached, unless an earlier failure read as far; is -1. */
static int fail_record(Parser *ps, int reached, int from, int to, const char *fmt, va_list ap)
{
    if (ps->failed && ps->fail_reached >= reached)
        return -1;
    ps->failed = 1;
    ps->fail_reached = reached;
    ps->fail.in_grammar = 0;
    ps->fail.from = from;
    ps->fail.to = to > from ? to : from + 1;
    ps->fail.reached = src_of(ps->lx, reached);
    vsnprintf(ps->fail.reason, sizeof ps->fail.reason, fmt, ap);
    return -1;
}

/* A failure over the word tokens [from, to) at the cursor (a failure at the end: the
 * final mark, or the last word); is -1. */
static int fail_words(Parser *ps, int from, int to, const char *fmt, ...)
{
    const Lexed *lx = ps->lx;
    int a, b;
    if (from >= lx->n) {
        a = lx->punct_src >= 0 ? lx->punct_src : lx->tok[lx->n - 1].src;
        b = a + 1;
    } else {
        a = lx->tok[from].src;
        b = to > from ? src_of(lx, to - 1) + 1 : a + 1;
    }
    va_list ap;
    va_start(ap, fmt);
    fail_record(ps, ps->p, a, b, fmt, ap);
    va_end(ap);
    return -1;
}

/* A failure of a reading that read all its words (a comma or the final mark out of
 * place), over the caller's tokens [from, from + 1); is -1. */
static int fail_after_words(Parser *ps, int from, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fail_record(ps, ps->lx->n + 1, from, from + 1, fmt, ap);
    va_end(ap);
    return -1;
}

/* "expected WHAT here" at the cursor, or "at the end". */
static int fail_want(Parser *ps, const char *what)
{
    if (ps->p >= ps->lx->n)
        return fail_words(ps, ps->p, ps->p + 1, "expected %s at the end", what);
    return fail_words(ps, ps->p, ps->p + 1, "expected %s here", what);
}

/* 1 when the word at the cursor + off is a verb form (a lexical verb, be or do). */
static int en_is_verbish(const Parser *ps, int off)
{
    const char *w = en_at(ps, off);
    return tok_at(ps, off)->verb >= 0 || is_be(w) || streq(w, "do") || streq(w, "does");
}

/* 1 when the word at the cursor + off can start `[very] adjective noun` / a noun. */
static int en_starts_nominal(const Parser *ps, int off)
{
    const Tok *t = tok_at(ps, off);
    return streq(t->w, "very") || t->adj >= 0 || t->noun >= 0;
}

static int is_vowel_letter(char c)
{
    return c == 'a' || c == 'e' || c == 'i' || c == 'o' || c == 'u';
}

/* The determiner w is, or -1; *plural_only is 1 for "these". */
static int find_det(const char *w, int *plural_only)
{
    *plural_only = streq(w, "these");
    if (*plural_only)
        return GRAMMAR_DET_THIS;
    if (streq(w, "an"))
        return GRAMMAR_DET_A;
    for (int d = GRAMMAR_DET_THE; d < GRAMMAR_DETS; d++)
        if (streq(w, GRAMMAR_DET_EN[d]))
            return d;
    return -1;
}

/* Why no noun is at the cursor of a noun phrase that began at start (a determiner,
 * "very" or an adjective read when the cursor is past start). */
static int np_missing(Parser *ps, Role role, const GrammarNp *np, int start)
{
    const Tok *t = tok_at(ps, 0);
    int plural_only;
    if (streq(t->w, "not") && ps->p > start) {
        int end = ps->p + 1;
        while (end < ps->lx->n && (streq(ps->lx->tok[end].w, "very") || ps->lx->tok[end].adj >= 0))
            end++;
        return fail_words(ps, ps->p, end, "\"not\" inside a noun phrase");
    }
    if (t->adj >= 0 && np->adj >= 0)
        return fail_words(ps, ps->p, ps->p + 1, "two adjectives before a noun");
    if (find_det(t->w, &plural_only) >= 0 && ps->p > start)
        return fail_words(ps, ps->p, ps->p + 1, "two determiners before a noun");
    if ((streq(t->w, "in") || streq(t->w, "with")) && role == ROLE_SUBJ && ps->p == start)
        return fail_words(ps, ps->p, ps->p + 1, "the grammar puts \"%s …\" after the verb "
                          "and its object, not first", t->w);
    return fail_want(ps, ps->p > start ? "a noun" : "a noun phrase");
}

/* Parses one noun phrase in role: `determiner [[very] adjective] noun`, a pronoun, a
 * name or object "this"; checks a/an, this/these, mass and count nouns. */
static int en_np(Parser *ps, Role role, GrammarNp *np)
{
    memset(np, 0, sizeof *np);
    np->adj = -1;
    const Tok *t = tok_at(ps, 0);
    if (t->is_name) {
        np->kind = GRAMMAR_NP_NAME;
        np->index = t->name;
        ps->p++;
        return 0;
    }
    for (int i = 0; i < GRAMMAR_N_PRONOUNS; i++) {
        const GrammarPronoun *pr = &GRAMMAR_PRONOUNS[i];
        const char *form = role == ROLE_SUBJ   ? pr->subj
                           : role == ROLE_OBJ  ? pr->obj
                           : role == ROLE_WITH ? pr->with
                                               : NULL;
        /* "her" before a noun is the possessive. */
        if (streq(t->w, form) && !(streq(t->w, "her") && en_starts_nominal(ps, 1))) {
            np->kind = GRAMMAR_NP_PRONOUN;
            np->index = i;
            np->plural = pr->person >= GRAMMAR_1PL;
            ps->p++;
            return 0;
        }
    }
    if (role == ROLE_OBJ && (streq(t->w, "this") || streq(t->w, "these")) &&
        !en_starts_nominal(ps, 1)) {
        np->kind = GRAMMAR_NP_THIS;
        np->plural = streq(t->w, "these");
        ps->p++;
        return 0;
    }
    int plural_only = 0, d = find_det(t->w, &plural_only);
    int start = ps->p, det_at = ps->p;
    np->kind = GRAMMAR_NP_NOUN;
    np->det = d < 0 ? GRAMMAR_DET_NONE : (GrammarDet)d;
    if (d >= 0)
        ps->p++;
    if (en_is(ps, "very")) {
        np->very = 1;
        ps->p++;
        if (tok_at(ps, 0)->adj < 0) {
            if (en_is(ps, "very"))
                return fail_words(ps, ps->p, ps->p + 1, "\"very\" twice");
            return fail_words(ps, ps->p - 1, ps->p, "\"very\" only before an adjective");
        }
    }
    np->adj = tok_at(ps, 0)->adj;
    int adj_at = ps->p;
    if (np->adj >= 0)
        ps->p++;
    np->noun = tok_at(ps, 0)->noun;
    np->plural = tok_at(ps, 0)->plural;
    if (np->noun < 0)
        return np_missing(ps, role, np, start);
    const GrammarNoun *n = &GRAMMAR_NOUNS[np->noun];
    const Lexed *lx = ps->lx;
    if (np->det == GRAMMAR_DET_A) {
        int first = np->very ? adj_at - 1 : np->adj >= 0 ? adj_at : ps->p;
        int an = is_vowel_letter(lx->tok[first].w[0]);
        if (streq(lx->tok[det_at].w, an ? "a" : "an")) {
            ps->p = det_at;
            return fail_words(ps, det_at, det_at + 1, "\"%s\" before \"%s\": want \"%s\"",
                              an ? "a" : "an", lx->tok[first].w, an ? "an" : "a");
        }
        if (np->plural || n->en_pl == NULL)
            return fail_words(ps, det_at, ps->p + 1, "no \"a\" before a %s",
                              np->plural ? "plural" : "mass noun");
    }
    if (np->det == GRAMMAR_DET_THIS && np->plural != plural_only)
        return fail_words(ps, det_at, ps->p + 1, "\"%s\" with a %s noun",
                          plural_only ? "these" : "this", np->plural ? "plural" : "singular");
    if (np->det == GRAMMAR_DET_NONE && !np->plural && n->en_pl != NULL)
        return fail_words(ps, start, ps->p + 1, "a singular count noun needs a determiner "
                          "(a, the, my …)");
    if (np->det >= GRAMMAR_DET_MY && n->nopossessive)
        return fail_words(ps, det_at, ps->p + 1, "no possessive before \"%s\" in this grammar",
                          n->en_sg);
    ps->p++;
    return 0;
}

/* 1 when a and b are the same noun, name or pronoun ("the dog and my dogs"). Names the
 * caller flagged are not compared: their tokens are not at hand, and any two may differ. */
static int np_same(const GrammarNp *a, const GrammarNp *b)
{
    if (a->kind != b->kind)
        return 0;
    switch (a->kind) {
    case GRAMMAR_NP_NOUN: return a->noun == b->noun;
    case GRAMMAR_NP_NAME: return a->index == b->index && a->index != GRAMMAR_NAME_OTHER;
    case GRAMMAR_NP_PRONOUN: return a->index == b->index;
    case GRAMMAR_NP_THIS: return 1;
    }
    return 0;
}

/* The two noun phrases l holds, joined by "and" at word tokens [start, ps->p) in role,
 * as the corpus coordinates: nouns and names only (the German of "Tom and I" takes the
 * 1st person plural, of "du und ich" other persons again), neither with "no", not the
 * same word twice, and neither after "with" nor as a predicate, where the corpus has one
 * phrase. Records the first such pair of the reading for en_sentence; 0, or -1. */
static int np_pair_check(Parser *ps, Role role, const GrammarNpList *l, int start)
{
    static const char *const ROLE_NAMES[] = {"a subject", "an object"};
    if (ps->coord_from < 0) {
        ps->coord_from = start;
        ps->coord_to = ps->p;
    }
    if (role == ROLE_WITH)
        return fail_words(ps, start, ps->p, "one person or animal after \"with\"");
    if (role == ROLE_IN)
        return fail_words(ps, start, ps->p, "one place after \"in\"");
    if (role == ROLE_PRED)
        return fail_words(ps, start, ps->p, "one noun phrase as the predicate");
    assert(role == ROLE_SUBJ || role == ROLE_OBJ);
    for (int i = 0; i < 2; i++) {
        const GrammarNp *np = &l->np[i];
        if (np->kind == GRAMMAR_NP_PRONOUN || np->kind == GRAMMAR_NP_THIS)
            return fail_words(ps, start, ps->p, "a pronoun joined with \"and\": the grammar "
                              "coordinates nouns and names only");
        if (np->kind == GRAMMAR_NP_NOUN && np->det == GRAMMAR_DET_NO)
            return fail_words(ps, start, ps->p, "\"no\" in %s joined with \"and\"",
                              ROLE_NAMES[role]);
    }
    if (np_same(&l->np[0], &l->np[1]))
        return fail_words(ps, start, ps->p, "the same %s twice in %s",
                          l->np[0].kind == GRAMMAR_NP_NAME ? "name" : "noun", ROLE_NAMES[role]);
    return 0;
}

/* Parses a noun phrase or two joined by "and". A subject takes "and NP" always; after a
 * verb "and NP" is a choice: coordination, or the start of the next clause. The first
 * reading tried is coordination unless a verb follows; ps->flip turns choices over, so
 * that every reading can be tried. */
static int en_np_list(Parser *ps, Role role, GrammarNpList *l)
{
    int start = ps->p;
    l->n = 1;
    if (en_np(ps, role, &l->np[0]) != 0)
        return -1;
    if (!en_is(ps, "and") || tok_at(ps, -1)->comma >= 0)
        return 0;
    int save = ps->p;
    ps->p++;
    GrammarNp second;
    int take = 0;
    if (en_np(ps, role, &second) == 0) {
        take = role == ROLE_SUBJ || !en_is_verbish(ps, 0);
        if (role != ROLE_SUBJ && ps->choices < 31 && ((ps->flip >> ps->choices++) & 1u))
            take = !take;
    }
    if (take) {
        l->np[1] = second;
        l->n = 2;
        return np_pair_check(ps, role, l, start);
    }
    ps->p = save;
    return 0;
}

/* The person of a subject: coordinated and plural subjects are 3rd plural. */
static GrammarPerson subject_person(const GrammarNpList *l)
{
    if (l->n == 2)
        return GRAMMAR_3PL;
    const GrammarNp *np = &l->np[0];
    if (np->kind == GRAMMAR_NP_PRONOUN)
        return GRAMMAR_PRONOUNS[np->index].person;
    return np->plural ? GRAMMAR_3PL : GRAMMAR_3SG;
}

/* Parses the subject of a clause into c->subj, noting where it stands. */
static int en_subject(Parser *ps, GrammarClause *c)
{
    ps->subj_from = ps->p;
    int rc = en_np_list(ps, ROLE_SUBJ, &c->subj);
    ps->subj_to = ps->p;
    return rc;
}

/* 1 when a noun phrase of l has the determiner "no". */
static int list_has_no(const GrammarNpList *l)
{
    for (int i = 0; i < l->n; i++)
        if (l->np[i].kind == GRAMMAR_NP_NOUN && l->np[i].det == GRAMMAR_DET_NO)
            return 1;
    return 0;
}

/* Checks that the word at the cursor is forms[person]; advances. */
static int en_agree(Parser *ps, const char *const forms[GRAMMAR_PERSONS], GrammarPerson person,
                    const char *what)
{
    if (!en_is(ps, forms[person]))
        return fail_words(ps, ps->p, ps->p + 1, "%s does not agree with the %s subject: want "
                          "\"%s\"", what, PERSON_NAMES[person], forms[person]);
    ps->p++;
    return 0;
}

/* "not" at the cursor: sets *neg, refusing a second one. */
static int en_not(Parser *ps, int *neg)
{
    if (!en_is(ps, "not"))
        return 0;
    if (*neg)
        return fail_words(ps, ps->p, ps->p + 1, "a second \"not\"");
    *neg = 1;
    ps->p++;
    return 0;
}

/* 1 when adjective b is among adjective a's OPPOSITES. The lexicon lists a pair on one
 * side or both ("good" lists "terrible", "terrible" lists nothing); the corpus never
 * coordinates it either way, so the parser asks both. */
static int opposes(int a, int b)
{
    for (int k = 0; k < GRAMMAR_MAX_OPPOSITES; k++)
        if (streq(GRAMMAR_ADJECTIVES[b].en, GRAMMAR_ADJECTIVES[a].opp[k]))
            return 1;
    return 0;
}

/* Whether a subject is "it" or "they", which may stand for a thing or for a living one. */
static int np_it_or_they(const GrammarNp *np)
{
    return np->kind == GRAMMAR_NP_PRONOUN &&
           (strcmp(GRAMMAR_PRONOUNS[np->index].subj, "it") == 0 ||
            strcmp(GRAMMAR_PRONOUNS[np->index].subj, "they") == 0);
}

/* Whether a subject is a person or an animal, one that feels hot or cold: a person or
 * animal noun, a name, a pronoun but "it" and "they" (which may stand for things). */
static int np_feels(const GrammarNp *np)
{
    switch (np->kind) {
    case GRAMMAR_NP_NOUN: return GRAMMAR_NOUNS[np->noun].cls != GRAMMAR_THING;
    case GRAMMAR_NP_NAME: return 1;
    case GRAMMAR_NP_PRONOUN: return !np_it_or_they(np);
    case GRAMMAR_NP_THIS: return 0;
    }
    return 0;
}

/* The i-th predicate adjective of c, just read at ps->p, against the felt rule
 * (grammar_adjective_is_felt): not of a person or an animal, and beside another adjective
 * not of "it" or "they", which the other adjective may make living ("It is hot and
 * thirsty": Es ist heiß und durstig would not be said of an animal). */
static int felt_predicate_check(Parser *ps, const GrammarClause *c, int i)
{
    const GrammarAdjective *a = &GRAMMAR_ADJECTIVES[c->adj[i]];
    const int felt = grammar_adjective_is_felt(c->adj[i]);
    for (int k = 0; felt && k < c->subj.n; k++)
        if (np_feels(&c->subj.np[k]))
            return fail_words(ps, ps->p, ps->p + 1, "\"%s\" of a person or an animal is "
                              "not said with \"sein\" in German (mir ist %s, not ich bin "
                              "%s); the grammar has it only of things", a->en, a->de, a->de);
    if (i == 0 || (!felt && !grammar_adjective_is_felt(c->adj[0])))
        return 0;
    for (int k = 0; k < c->subj.n; k++)
        if (np_it_or_they(&c->subj.np[k]))
            return fail_words(ps, ps->p, ps->p + 1, "\"%s\" beside \"%s\" of \"%s\": a "
                              "thing (es ist kalt) or a living one (mir ist kalt)? The grammar "
                              "has hot, cold, warm, cool of it or they alone",
                              a->en, GRAMMAR_ADJECTIVES[c->adj[0]].en,
                              GRAMMAR_PRONOUNS[c->subj.np[k].index].subj);
    return 0;
}

/* The predicate adjectives: [very] ADJ [and [not] [very] ADJ2]. */
static int en_adj_predicate(Parser *ps, GrammarClause *c)
{
    c->type = GRAMMAR_CL_ADJ;
    c->adj_not[0] = c->neg;
    for (;;) {
        int i = c->nadj;
        if (i > 0 && en_not(ps, &c->adj_not[i]) != 0)
            return -1;
        if (en_is(ps, "very")) {
            c->adj_very[i] = 1;
            ps->p++;
        }
        c->adj[i] = tok_at(ps, 0)->adj;
        if (c->adj[i] < 0) {
            if (c->adj_very[i] && en_is(ps, "very"))
                return fail_words(ps, ps->p, ps->p + 1, "\"very\" twice");
            return fail_want(ps, "an adjective");
        }
        if (i > 0 && (c->adj[1] == c->adj[0] || opposes(c->adj[0], c->adj[1]) ||
                      opposes(c->adj[1], c->adj[0])))
            return fail_words(ps, ps->p, ps->p + 1, "the second adjective repeats or "
                              "opposes \"%s\"", GRAMMAR_ADJECTIVES[c->adj[0]].en);
        if (felt_predicate_check(ps, c, i) != 0)
            return -1;
        ps->p++;
        c->nadj++;
        if (c->adj_not[i] && list_has_no(&c->subj))
            return fail_words(ps, ps->subj_from, ps->subj_to, "\"no\" only in clauses "
                              "without \"not\"");
        if (c->nadj == 2 || !en_is(ps, "and") || tok_at(ps, -1)->comma >= 0)
            return 0;
        /* "and [not] [very] ADJ" not followed by a noun goes on the predicate. */
        int k = 1 + en_is_at(ps, 1, "not");
        k += en_is_at(ps, k, "very");
        if (tok_at(ps, k)->adj < 0 || tok_at(ps, k + 1)->noun >= 0)
            return 0;
        ps->p++;
    }
}

/* The sex of what a noun phrase stands for: the noun's, the name's, the pronoun's;
 * none for a name the caller flagged (the grammar does not know it) and for "this". */
static GrammarSex np_sex(const GrammarNp *np)
{
    switch (np->kind) {
    case GRAMMAR_NP_NOUN: return GRAMMAR_NOUNS[np->noun].sex;
    case GRAMMAR_NP_NAME:
        return np->index == GRAMMAR_NAME_OTHER ? GRAMMAR_SEX_NONE
                                               : GRAMMAR_NAMES[np->index].sex;
    case GRAMMAR_NP_PRONOUN: return GRAMMAR_PRONOUNS[np->index].sex;
    case GRAMMAR_NP_THIS: return GRAMMAR_SEX_NONE;
    }
    return GRAMMAR_SEX_NONE;
}

/* The word of a noun phrase at word token at, for a learner: the noun as written, the
 * name as the lexicon writes it, "I". */
static const char *np_word(const Parser *ps, const GrammarNp *np, int at)
{
    switch (np->kind) {
    case GRAMMAR_NP_NOUN:
        return np->plural ? GRAMMAR_NOUNS[np->noun].en_pl : GRAMMAR_NOUNS[np->noun].en_sg;
    case GRAMMAR_NP_NAME:
        return np->index == GRAMMAR_NAME_OTHER ? ps->lx->tok[at].w
                                               : GRAMMAR_NAMES[np->index].name;
    case GRAMMAR_NP_PRONOUN: return np->index == 0 ? "I" : GRAMMAR_PRONOUNS[np->index].subj;
    case GRAMMAR_NP_THIS: return np->plural ? "these" : "this";
    }
    return "";
}

/* A noun predicate of a person, read at word tokens [at, ps->p): one subject, and a
 * predicate noun with a sex only of a subject known to have it ("Bob is a girl" would be
 * "Bob ist ein Mädchen"; "I" and "you" may be either). A woman takes a man's noun that
 * has a female form in that form (She is my teacher → Sie ist meine Lehrerin): marks it
 * in the predicate's GrammarNp.female. */
static int noun_predicate_check(Parser *ps, GrammarClause *c, int at)
{
    if (c->subj.n == 2)
        return fail_words(ps, ps->subj_from, ps->subj_to, "a noun predicate takes one "
                          "subject, not two joined by \"and\"");
    const GrammarNp *subj = &c->subj.np[0];
    GrammarNp *pred = &c->obj.np[0];
    GrammarSex want = np_sex(pred), have = np_sex(subj);
    if (want == GRAMMAR_SEX_NONE || have == want)
        return 0;
    /* The noun, when the predicate is one ("She is Bob" has a name). */
    const GrammarNoun *n =
        pred->kind == GRAMMAR_NP_NOUN ? &GRAMMAR_NOUNS[pred->noun] : NULL;
    if (have == GRAMMAR_SEX_F && n != NULL && n->fem_sg != NULL) {
        pred->female = 1;
        return 0;
    }
    const char *word = np_word(ps, subj, ps->subj_from), *noun = np_word(ps, pred, at);
    const char *whose = want == GRAMMAR_SEX_M ? "man's" : "woman's";
    const char *is = subj->plural ? "are" : "is";
    if (have == GRAMMAR_SEX_NONE && n != NULL && n->fem_sg != NULL)
        return fail_words(ps, at, ps->p, "the predicate noun \"%s\" is %s of a man and %s "
                          "of a woman; the grammar does not know whether \"%s\" %s male or "
                          "female", noun, pred->plural ? n->de_pl : n->de_sg,
                          pred->plural ? n->fem_pl : n->fem_sg, word, is);
    if (have == GRAMMAR_SEX_NONE)
        return fail_words(ps, at, ps->p, "the predicate noun \"%s\" is a %s word; the grammar "
                          "does not know whether \"%s\" %s %s", noun, whose, word, is,
                          want == GRAMMAR_SEX_M ? "male" : "female");
    return fail_words(ps, at, ps->p, "the predicate noun \"%s\" is a %s word; \"%s\" %s %s",
                      noun, whose, word, is, have == GRAMMAR_SEX_M ? "male" : "female");
}

/* After "be" (and its subject): [not] ADJ-predicate | [not] NP | [not] in NP. */
static int en_be_rest(Parser *ps, GrammarClause *c, int this_subject)
{
    if (en_not(ps, &c->neg) != 0)
        return -1;
    int plural = c->subj.n == 2 || c->subj.np[0].plural;
    if (en_is(ps, "in") && !this_subject) {
        ps->p++;
        c->type = GRAMMAR_CL_LOCATION;
        c->obj.n = 1;
        return en_np(ps, ROLE_IN, &c->obj.np[0]);
    }
    /* [very] ADJ not followed by a noun is the predicate adjective; "big dogs" a noun. */
    int k = en_is(ps, "very");
    if (tok_at(ps, k)->adj >= 0 && tok_at(ps, k + 1)->noun < 0)
        return en_adj_predicate(ps, c);
    if (k && en_is_at(ps, 1, "very"))
        return fail_words(ps, ps->p + 1, ps->p + 2, "\"very\" twice");
    c->type = GRAMMAR_CL_NOUN;
    int at = ps->p;
    if (en_np_list(ps, ROLE_PRED, &c->obj) != 0)
        return -1;
    if (c->obj.np[0].plural != plural)
        return fail_words(ps, at, ps->p, "the predicate noun must be %s like the subject",
                          plural ? "plural" : "singular");
    return this_subject ? 0 : noun_predicate_check(ps, c, at);
}

/* Verb [and verb] OBJECT [adjunct]. person: the subject's, or -1 in an imperative;
 * base: 1 after do-support and in imperatives (the verb takes no -s). */
static int en_transitive(Parser *ps, GrammarClause *c, int person, int base)
{
    c->type = GRAMMAR_CL_TRANSITIVE;
    for (;;) {
        const Tok *t = tok_at(ps, 0);
        int v = t->verb;
        if (v < 0)
            return fail_want(ps, "a verb");
        int want_third = person == GRAMMAR_3SG && !base;
        if (t->third != want_third)
            return fail_words(ps, ps->p, ps->p + 1, "verb does not agree with the %s: want "
                              "\"%s\"", person < 0 ? "imperative" : base ? "do-support"
                              : PERSON_NAMES[person], want_third ? GRAMMAR_VERBS[v].en_3sg
                              : GRAMMAR_VERBS[v].en);
        if (person < 0 && GRAMMAR_VERBS[v].imperative == NULL)
            return fail_words(ps, ps->p, ps->p + 1, "\"%s\" has no imperative in this grammar",
                              GRAMMAR_VERBS[v].en);
        if (c->nverbs == 1 && v == c->verb[0])
            return fail_words(ps, ps->p, ps->p + 1, "the same verb twice");
        c->verb[c->nverbs++] = v;
        ps->p++;
        if (c->nverbs == 2 || !en_is(ps, "and") || c->neg ||
            ps->s->mood == GRAMMAR_DO_QUESTION)
            break;
        if (tok_at(ps, 1)->verb < 0)
            break;
        ps->p++;
    }
    int at = ps->p;
    if (en_np_list(ps, ROLE_OBJ, &c->obj) != 0)
        return -1;
    if (c->neg && list_has_no(&c->obj))
        return fail_words(ps, at, ps->p, "\"no\" only in clauses without \"not\"");
    if (c->neg && list_has_no(&c->subj))
        return fail_words(ps, ps->subj_from, ps->subj_to, "\"no\" only in clauses without "
                          "\"not\"");
    if (list_has_no(&c->subj) && list_has_no(&c->obj))
        return fail_words(ps, at, ps->p, "\"no\" once per clause");
    if (c->neg && c->obj.n == 2)
        return fail_words(ps, at, ps->p, "a negated clause has one object");
    if (en_is(ps, "with") || en_is(ps, "in")) {
        if (c->neg)
            return fail_words(ps, ps->p, ps->p + 1, "a negated clause takes no \"with\" or "
                              "\"in\" phrase");
        c->adjunct = en_is(ps, "with") ? GRAMMAR_ADJUNCT_WITH : GRAMMAR_ADJUNCT_IN;
        ps->p++;
        if (en_np_list(ps, c->adjunct == GRAMMAR_ADJUNCT_WITH ? ROLE_WITH : ROLE_IN,
                       &c->adjunct_np) != 0)
            return -1;
    }
    return 0;
}

/* One clause in statement order. */
static int en_clause(Parser *ps, GrammarClause *c)
{
    memset(c, 0, sizeof *c);
    int this_sg = en_is(ps, "this"), these = en_is(ps, "these");
    if ((this_sg || these) && is_be(en_at(ps, 1))) {
        c->subj.n = 1;
        c->subj.np[0].kind = GRAMMAR_NP_THIS;
        c->subj.np[0].plural = these;
        c->person = these ? GRAMMAR_3PL : GRAMMAR_3SG;
        ps->p++;
        if (en_agree(ps, GRAMMAR_BE, c->person, "\"be\"") != 0)
            return -1;
        return en_be_rest(ps, c, 1);
    }
    if (en_subject(ps, c) != 0)
        return -1;
    c->person = subject_person(&c->subj);
    if (is_be(en_at(ps, 0))) {
        if (en_agree(ps, GRAMMAR_BE, c->person, "\"be\"") != 0)
            return -1;
        return en_be_rest(ps, c, 0);
    }
    if (en_is(ps, "do") || en_is(ps, "does")) {
        if (en_agree(ps, DO_FORMS, c->person, "\"do\"") != 0)
            return -1;
        if (!en_is(ps, "not"))
            return fail_words(ps, ps->p, ps->p + 1, "expected \"not\" after \"%s\"",
                              en_at(ps, -1));
        ps->p++;
        c->neg = 1;
    }
    return en_transitive(ps, c, (int)c->person, c->neg);
}

/* "not" right after the be or do that opens a question: the corpus writes it only as
 * "n't" (Isn't the dog big?); the tokens say so only when the caller flagged it. */
static int en_question_not(Parser *ps, GrammarClause *c)
{
    if (!en_is(ps, "not"))
        return 0;
    if (tok_at(ps, 0)->written_not)
        return fail_words(ps, ps->p, ps->p + 1, "\"not\" before the subject only as \"n't\"");
    c->neg = 1;
    ps->p++;
    return 0;
}

/* The rest of a be-question after its subject: agreement with the "be" at be_at, then
 * the predicate. */
static int be_question_rest(Parser *ps, GrammarClause *c, int be_at, int this_subject)
{
    int after = ps->p;
    ps->p = be_at;
    if (en_agree(ps, GRAMMAR_BE, c->person, "\"be\"") != 0)
        return -1;
    ps->p = after;
    return en_be_rest(ps, c, this_subject);
}

/* Is/Are/Am [n't] SUBJ [not] PREDICATE */
static int en_be_question(Parser *ps, GrammarClause *c)
{
    memset(c, 0, sizeof *c);
    int be_at = ps->p++;
    if (en_question_not(ps, c) != 0)
        return -1;
    if ((en_is(ps, "this") || en_is(ps, "these")) && en_starts_nominal(ps, 1)) {
        /* "Are these old dogs?" has "these" as subject; "Is this old dog big?" a noun
         * phrase: try the noun phrase first, then "this"/"these" alone. */
        int save = ps->p;
        GrammarClause tc = *c;
        if (en_subject(ps, &tc) == 0) {
            tc.person = subject_person(&tc.subj);
            if (be_question_rest(ps, &tc, be_at, 0) == 0) {
                *c = tc;
                return 0;
            }
        }
        ps->p = save;
    }
    int this_subject = 0;
    if (en_is(ps, "this") || en_is(ps, "these")) {
        this_subject = 1;
        c->subj.n = 1;
        c->subj.np[0].kind = GRAMMAR_NP_THIS;
        c->subj.np[0].plural = en_is(ps, "these");
        ps->p++;
    } else if (en_subject(ps, c) != 0) {
        return -1;
    }
    c->person = subject_person(&c->subj);
    return be_question_rest(ps, c, be_at, this_subject);
}

/* Do/Does [n't] SUBJ [not] VERB OBJ [adjunct] */
static int en_do_question(Parser *ps, GrammarClause *c)
{
    memset(c, 0, sizeof *c);
    int do_at = ps->p++;
    if (en_question_not(ps, c) != 0)
        return -1;
    if (en_subject(ps, c) != 0)
        return -1;
    c->person = subject_person(&c->subj);
    int after = ps->p;
    ps->p = do_at;
    if (en_agree(ps, DO_FORMS, c->person, "\"do\"") != 0)
        return -1;
    ps->p = after;
    if (en_not(ps, &c->neg) != 0)
        return -1;
    return en_transitive(ps, c, (int)c->person, 1);
}

/* The sentence: its mood from the first word, its clauses, then where commas and the
 * final mark stand. */
static int en_sentence(Parser *ps)
{
    const Lexed *lx = ps->lx;
    GrammarSentence *s = ps->s;
    s->punct = lx->punct;
    int comma_ok[MAX_TOKS] = {0};
    const char *first = en_at(ps, 0);
    if (is_be(first)) {
        s->mood = GRAMMAR_BE_QUESTION;
        if (en_be_question(ps, &s->cl[0]) != 0)
            return -1;
        s->ncl = 1;
    } else if ((streq(first, "do") || streq(first, "does")) &&
               !(en_is_at(ps, 1, "not") && tok_at(ps, 2)->verb >= 0)) {
        s->mood = GRAMMAR_DO_QUESTION;
        if (en_do_question(ps, &s->cl[0]) != 0)
            return -1;
        s->ncl = 1;
    } else if (streq(first, "do") || tok_at(ps, 0)->verb >= 0) {
        s->mood = GRAMMAR_IMPERATIVE;
        GrammarClause *c = &s->cl[0];
        memset(c, 0, sizeof *c);
        if (streq(first, "do")) {
            ps->p += 2;
            c->neg = 1;
        }
        if (en_transitive(ps, c, -1, 1) != 0)
            return -1;
        s->ncl = 1;
    } else {
        s->mood = GRAMMAR_STATEMENT;
        for (;;) {
            if (en_clause(ps, &s->cl[s->ncl]) != 0)
                return -1;
            s->ncl++;
            if (!en_is(ps, "and") || s->ncl == GRAMMAR_MAX_CLAUSES)
                break;
            comma_ok[ps->p - 1] = 1;
            ps->p++;
        }
    }
    if (ps->p < lx->n) {
        if (en_is(ps, "and") && s->ncl == GRAMMAR_MAX_CLAUSES)
            return fail_words(ps, ps->p, lx->n, "at most %d clauses joined by \"and\"",
                              GRAMMAR_MAX_CLAUSES);
        return fail_words(ps, ps->p, lx->n, "the sentence should have ended before this");
    }
    /* Clauses joined by "and" hold no pair of noun phrases joined by "and", so that every
     * "and" joins one way only (docs/corpus.md, Sentences). */
    if (s->ncl > 1 && ps->coord_from >= 0)
        return fail_words(ps, ps->coord_from, ps->coord_to, "\"and\" joins two noun phrases "
                          "only in a sentence of one clause");
    for (int i = 0; i < lx->n; i++)
        if (lx->tok[i].comma >= 0 && !comma_ok[i])
            return fail_after_words(ps, lx->tok[i].comma, "a comma only before the \"and\" "
                                    "that joins two clauses");
    static const char *const PUNCTS[] = {".", "?", "?", ".!"};
    if (s->punct != 0 && strchr(PUNCTS[s->mood], s->punct) == NULL)
        return fail_after_words(ps, lx->punct_src, "a %s does not end in \"%c\"",
                          s->mood == GRAMMAR_STATEMENT    ? "statement"
                          : s->mood == GRAMMAR_IMPERATIVE ? "command"
                                                          : "question",
                          s->punct);
    return 0;
}

/* ---------------------------------------------------------------------------------------
 * The API.
 * ------------------------------------------------------------------------------------- */

static int check_args(const char *const *tokens, int n, const GrammarVerdict *out)
{
    if (n < 0 || out == NULL || (n > 0 && tokens == NULL))
        return TT_EINVAL;
    for (int i = 0; i < n; i++)
        if (tokens[i] == NULL)
            return TT_EINVAL;
    return TT_OK;
}

/* One reading of lexed tokens; 0 with *s the parse, or -1 with *out the failure. */
static int parse_lexed(const Lexed *lx, unsigned reading, GrammarSentence *s, int *choices,
                       GrammarVerdict *out)
{
    memset(s, 0, sizeof *s);
    Parser ps = {.lx = lx, .s = s, .flip = reading, .coord_from = -1};
    int rc = en_sentence(&ps);
    *choices = ps.choices;
    if (rc == 0) {
        memset(out, 0, sizeof *out);
        out->in_grammar = 1;
        return 0;
    }
    assert(ps.failed);
    *out = ps.fail;
    return -1;
}

int grammar_parse(const char *const *tokens, const unsigned char *flags, int n,
                  unsigned reading, GrammarSentence *s, int *choices, GrammarVerdict *out)
{
    int rc = check_args(tokens, n, out);
    if (rc != TT_OK || s == NULL || choices == NULL)
        return rc != TT_OK ? rc : TT_EINVAL;
    Lexed lx;
    *choices = 0;
    if (lex(tokens, flags, 0, n, &lx, out) != 0)
        return TT_OK;
    parse_lexed(&lx, reading, s, choices, out);
    return TT_OK;
}

/* Readings grammar_check tries at most: 2^8, far more than the corpus's sentences have
 * (three clauses, so at most a few "and"s after an object). */
enum { MAX_READINGS = 256 };

int grammar_check(const char *const *tokens, const unsigned char *is_name, int n,
                  GrammarVerdict *out)
{
    int rc = check_args(tokens, n, out);
    if (rc != TT_OK)
        return rc;
    Lexed lx;
    GrammarSentence s;
    if (lex(tokens, is_name, 1, n, &lx, out) != 0)
        return TT_OK;
    GrammarVerdict best = {.reached = -1}, v;
    int choices = 0;
    for (unsigned r = 0; r < MAX_READINGS && (r == 0 || r < (1u << choices)); r++) {
        int more;
        if (parse_lexed(&lx, r, &s, &more, &v) == 0) {
            *out = v;
            return TT_OK;
        }
        if (more > choices)
            choices = more;
        if (v.reached > best.reached)
            best = v;
    }
    *out = best;
    return TT_OK;
}

/* ---------------------------------------------------------------------------------------
 * The phrasebook, typed from data/phrasebook.tsv (test_grammar_phrasebook_matches_
 * table holds it to the file, token for token).
 * ------------------------------------------------------------------------------------- */

/* FNV-1a 64 of data/phrasebook.tsv as the table was typed from it. */
#define PHRASEBOOK_FNV1A64 UINT64_C(0xbb95032352ee587e)

const GrammarPhrase GRAMMAR_PHRASES[GRAMMAR_N_PHRASES] = {
    {"hello", "Hallo", 0},
    {"hi", "Hi", 0},
    {"good morning", "Guten Morgen", 0},
    {"good afternoon", "Guten Tag", 0},
    {"good evening", "Guten Abend", 0},
    {"good night", "Gute Nacht", 0},
    {"goodbye", "Auf Wiedersehen", 0},
    {"bye", "Tschüss", 0},
    {"see you later", "Bis später", 0},
    {"see you tomorrow", "Bis morgen", 0},
    {"see you soon", "Bis bald", 0},
    {"have a nice day", "Schönen Tag noch", 0},
    {"welcome", "Willkommen", 0},
    {"thanks", "Danke", 0},
    {"thank you", "Danke schön", 0},
    {"thank you very much", "Vielen Dank", 0},
    {"you are welcome", "Gern geschehen", 0},
    {"please", "Bitte", 0},
    {"yes", "Ja", 0},
    {"no", "Nein", 0},
    {"yes , please", "Ja, bitte", 0},
    {"no , thank you", "Nein, danke", 0},
    {"excuse me", "Entschuldigung", 0},
    {"sorry", "Tut mir leid", 0},
    {"i am sorry", "Es tut mir leid", 0},
    {"no problem", "Kein Problem", 0},
    {"how are you", "Wie geht es dir", 1},
    {"i am fine", "Mir geht es gut", 0},
    {"i am fine , thanks", "Mir geht es gut, danke", 0},
    {"and you", "Und dir", 1},
    {"not bad", "Nicht schlecht", 0},
    {"i am cold", "Mir ist kalt", 0},
    {"i am hot", "Mir ist heiß", 0},
    {"are you cold", "Ist dir kalt", 1},
    {"what is your name", "Wie heißt du", 1},
    {"nice to meet you", "Freut mich", 0},
    {"where are you from", "Woher kommst du", 1},
    {"i do not understand", "Ich verstehe das nicht", 0},
    {"i do not know", "Ich weiß es nicht", 0},
    {"can you help me", "Kannst du mir helfen", 1},
    {"do you speak english", "Sprichst du Englisch", 1},
    {"i speak a little german", "Ich spreche ein bisschen Deutsch", 0},
    {"of course", "Natürlich", 0},
    {"me too", "Ich auch", 0},
    {"good luck", "Viel Glück", 0},
    {"have fun", "Viel Spaß", 0},
    {"congratulations", "Herzlichen Glückwunsch", 0},
    {"happy birthday", "Alles Gute zum Geburtstag", 0},
    {"merry christmas", "Frohe Weihnachten", 0},
    {"happy new year", "Frohes neues Jahr", 0},
    {"enjoy your meal", "Guten Appetit", 0},
    {"cheers", "Prost", 0},
    {"take care", "Pass auf dich auf", 0},
    {"sleep well", "Schlaf gut", 0},
    {"get well soon", "Gute Besserung", 0},
};

uint64_t grammar_phrasebook_fnv1a64(void)
{
    return PHRASEBOOK_FNV1A64;
}

/* How many of tokens[0..n) match phrase p word for word from the start; *whole is set to
 * 1 when they are all of it. */
static int phrase_prefix(const GrammarPhrase *p, const char *const *tokens, int n, int *whole)
{
    const char *w = p->en;
    int k = 0;
    while (k < n) {
        const size_t len = strcspn(w, " ");
        if (len == 0 || strlen(tokens[k]) != len || strncmp(tokens[k], w, len) != 0)
            break;
        k++;
        w += len;
        if (*w == ' ')
            w++;
    }
    *whole = k == n && *w == '\0';
    return k;
}

int grammar_find_phrase(const char *const *tokens, int n)
{
    if (n <= 0 || tokens == NULL)
        return -1;
    for (int i = 0; i < GRAMMAR_N_PHRASES; i++) {
        int whole;
        phrase_prefix(&GRAMMAR_PHRASES[i], tokens, n, &whole);
        if (whole)
            return i;
    }
    return -1;
}

/* The phrasebook's verdict on tokens[0..n): 1 when a phrase with a mark its mood takes
 * (out filled, in the grammar); else 0, with *near the tokens the nearest phrase matches
 * and out filled with where the sentence leaves it (when *near > 0). */
static int phrase_verdict(const char *const *tokens, int n, GrammarVerdict *out, int *near)
{
    const char *last = n > 0 ? tokens[n - 1] : "";
    const int marked = streq(last, ".") || streq(last, "?") || streq(last, "!");
    const int m = n - marked; /* the words */
    int best = -1, best_len = 0;
    *near = 0;
    for (int i = 0; i < GRAMMAR_N_PHRASES; i++) {
        int whole;
        const int k = phrase_prefix(&GRAMMAR_PHRASES[i], tokens, m, &whole);
        if (whole) {
            const int ok = !marked || (GRAMMAR_PHRASES[i].question ? last[0] == '?'
                                                                   : last[0] != '?');
            if (ok) {
                memset(out, 0, sizeof *out);
                out->in_grammar = 1;
                return 1;
            }
            *near = n;
            verdict_fail(out, m, n, m, GRAMMAR_PHRASES[i].question
                         ? "\"%s\" asks: \"?\" or no mark, not \"%s\""
                         : "\"%s\" does not ask: \".\", \"!\" or no mark, not \"%s\"",
                         GRAMMAR_PHRASES[i].en, last);
            return 0;
        }
        if (k > best_len) {
            best = i;
            best_len = k;
        }
    }
    if (best < 0)
        return 0;
    *near = best_len;
    if (best_len < m)
        verdict_fail(out, best_len, best_len + 1, best_len, "not the phrase \"%s\"",
                     GRAMMAR_PHRASES[best].en);
    else /* all the words, but the phrase goes on */
        verdict_fail(out, m - 1, m, m, "the phrase \"%s\" cut short",
                     GRAMMAR_PHRASES[best].en);
    return 0;
}

int grammar_is_phrase(const char *const *tokens, int n)
{
    GrammarVerdict unused;
    int near;
    return tokens != NULL && n > 0 && phrase_verdict(tokens, n, &unused, &near);
}

int grammar_check_with(const char *const *tokens, const unsigned char *is_name, int n,
                       unsigned with, GrammarVerdict *out)
{
    int rc = check_args(tokens, n, out);
    if (rc != TT_OK || !(with & GRAMMAR_WITH_PHRASEBOOK))
        return rc != TT_OK ? rc : grammar_check(tokens, is_name, n, out);
    GrammarVerdict phrase;
    int near;
    if (phrase_verdict(tokens, n, &phrase, &near)) {
        *out = phrase;
        return TT_OK;
    }
    rc = grammar_check(tokens, is_name, n, out);
    /* Outside both: report the one the sentence followed farther. On a tie the phrase,
     * unless it shares just the first word ("I adore pizza" is not "I am sorry" gone
     * wrong) or the grammar stopped at a word of its own, where its reason is the more
     * telling ("I am warm.": not "i am sorry" but mir ist warm). */
    if (rc == TT_OK && !out->in_grammar && near > 0 &&
        (near > out->reached ||
         (near == out->reached && near > 1 &&
          !(out->from < n && grammar_is_word(tokens[out->from])))))
        *out = phrase;
    return rc;
}
