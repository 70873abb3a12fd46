// Package undo owns agate's store of kept copies: what a call agate let
// through deleted or overwrote, which git could not give back, kept
// before the call ran so that `agate undo ID` can put it back.
//
// The contract:
//
//   - The store is a private folder (0700) of the state folder, which the
//     sandbox hides from confined commands. Each entry is a folder named
//     by its id holding entry.json and the kept files; it is built under
//     a temporary name and renamed into place only once every copy and
//     entry.json are synced, so an entry that is offered is whole, and
//     killing the daemon at any moment leaves at worst a temporary folder
//     that Prune removes.
//   - A file is kept as a hard link when the call only unlinks it and no
//     other name shares it, as a clone (reflink) where the filesystem
//     can, and as a copy otherwise. A link is kept as a link: nothing is
//     ever followed. Kept bytes count at full size against the limits,
//     whatever the filesystem shares.
//   - Each kept file's SHA-256 is taken after the entry is offered (off
//     the decision's path) and checked when it is put back: a copy that
//     changed (a hard link whose file the call wrote in place after all)
//     is not put back, and says so.
//   - Restore writes only beneath the entry's root (the project or the
//     trusted dir), opening every folder on the way without following a
//     link: a folder that has become a link makes it refuse. It never
//     writes over a file that is there now (it writes the kept copy
//     beside it, NAME.agate-undo-ID), and never deletes anything.
//   - Nothing is kept that would leave the disk with less than the free
//     space floor, more than the limits, or a file that holds secrets
//     (Measure says which: the caller asks the person instead).
package undo
