/*
 * train_settings.h — the settings that define a training run, as one table.
 *
 * Each row is one setting: the TrainOptions field it fills, its type and default, the
 * closed range of its value (checked as the type it is used as), its command-line
 * option, its meta key and the label `toytrans info` shows. Adding a setting is a row
 * here and a field in TrainOptions: train.h takes the TrainSetting enum from the table,
 * settings.c its parsing, defaults, meta, the resume's rule and info's lines
 * (train_provenance_keys).
 *
 *   X(NAME, field, TYPE, default, lo, hi, range, option, key, label, rule, unrecorded)
 *
 * NAME      the enum is TRAIN_NAME
 * TYPE      INT (int), FLOAT (float) or U64 (uint64_t; any value, lo and hi unused)
 * range     a float's range in words where "from LO to HI" would mislead, else NULL
 * rule      what a resume does with it (train.h): KEEP, the file's is kept and a given one
 *           must equal it; MAY_CHANGE, a given one replaces it (the epochs extend a run);
 *           REQUIRED, KEEP and the file must have it (a position counted in batches means
 *           nothing without the batch size)
 * unrecorded  what a file from before the key was recorded ran with; NAN: the option's
 *           value, given or default
 *
 * The rows are in info's order. A macro table, so that the one list gives train.h's enum
 * and settings.c's two tables: the settings, and the provenance info shows.
 */
#ifndef TOYTRANS_TRAIN_SETTINGS_H
#define TOYTRANS_TRAIN_SETTINGS_H

/* The largest float below 1: a beta of 1 would never forget the first gradient. */
#define TRAIN_BETA_MAX 0.99999994039535522

#define TRAIN_SETTINGS(X)                                                                      \
    X(EPOCHS, epochs, INT, 10, 1, 100000, NULL, "--epochs", "train_epochs", "epochs",          \
      MAY_CHANGE, NAN)                                                                         \
    X(BATCH, batch, INT, TRAIN_DEFAULT_BATCH, 1, TRAIN_MAX_BATCH, NULL, "--batch",             \
      "train_batch_size", "batch size", REQUIRED, NAN)                                         \
    X(LR, lr, FLOAT, 1e-3, 1e-9, 1e9, NULL, "--lr", "train_lr", "peak learning rate", KEEP,    \
      NAN)                                                                                     \
    X(WARMUP, warmup, INT, 400, 0, 100000000, NULL, "--warmup", "train_warmup",                \
      "warm-up steps", KEEP, NAN)                                                              \
    X(LABEL_SMOOTHING, label_smoothing, FLOAT, 0.1, 0, 0.999, NULL, "--label-smoothing",      \
      "train_label_smoothing", "label smoothing", KEEP, NAN)                                   \
    X(DROPOUT, dropout, FLOAT, 0, 0, 0.9, NULL, "--dropout", "train_dropout", "dropout", KEEP, \
      NAN)                                                                                     \
    X(NAME_AUGMENT, name_augment, FLOAT, 0.1, 0, 1, NULL, "--name-augment",                    \
      "train_name_augment", "name augmentation", KEEP, NAN)                                    \
    X(WEIGHT_DECAY, weight_decay, FLOAT, 0.01, 0, 1, NULL, "--weight-decay",                   \
      "train_weight_decay", "weight decay", KEEP, NAN)                                         \
    X(ADAM_BETA1, adam_beta1, FLOAT, 0.9, 0, TRAIN_BETA_MAX, "from 0 to below 1",              \
      "--adam-beta1", "train_adam_beta1", "AdamW beta1", KEEP, 0.9)                            \
    X(ADAM_BETA2, adam_beta2, FLOAT, 0.98, 0, TRAIN_BETA_MAX, "from 0 to below 1",             \
      "--adam-beta2", "train_adam_beta2", "AdamW beta2", KEEP, 0.98)                           \
    /* Above 0 as a float: 1e-50 would round to 0 and divide by zero. */                      \
    X(ADAM_EPS, adam_eps, FLOAT, 1e-9, FLT_TRUE_MIN, FLT_MAX, "above 0", "--adam-eps",         \
      "train_adam_eps", "AdamW epsilon", KEEP, 1e-9)                                           \
    X(CLIP, clip, FLOAT, 1, 0, 1e6, NULL, "--clip", "train_clip", "gradient clipping", KEEP,   \
      NAN)                                                                                     \
    X(SEED, seed, U64, 1, 0, 0, NULL, "--seed", "train_seed", "training seed", KEEP, NAN)

#endif
