package org.kafscale.proxy.core.codec;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Iterator;
import java.util.List;
import java.util.function.Consumer;
import java.util.function.Predicate;
import org.apache.kafka.common.utils.ImplicitLinkedHashCollection;

/**
 * Renaming the entries of kafka-clients' keyed collections (the generated {@code ...Collection}
 * classes, which find an entry by its name). An entry renamed in place would sit where its old
 * name hashes, so a later {@code find} by its new name (a route merging answers does) would miss
 * it: each entry is taken out, renamed, and put back.
 */
public final class Entries {
    private Entries() {
    }

    /** Renames every entry of a keyed collection, keeping their order. */
    public static <E extends ImplicitLinkedHashCollection.Element> void rename(ImplicitLinkedHashCollection<E> entries,
                                                                               Consumer<? super E> rename) {
        keepRenamed(entries, entry -> true, rename);
    }

    /** Keeps the entries {@code kept} holds for, each renamed, in their order; drops the rest. */
    public static <E extends ImplicitLinkedHashCollection.Element> void keepRenamed(
            ImplicitLinkedHashCollection<E> entries, Predicate<? super E> kept, Consumer<? super E> rename) {
        List<E> all = new ArrayList<>(entries.size());
        for (Iterator<E> it = entries.iterator(); it.hasNext(); ) {
            all.add(it.next());
            it.remove();
        }
        for (E entry : all) {
            if (kept.test(entry)) {
                rename.accept(entry);
                entries.add(entry);
            }
        }
    }

    /** The same for a plain list (a collection no one finds by name): renamed in place, the rest dropped. */
    public static <E> void keepRenamed(Collection<E> entries, Predicate<? super E> kept, Consumer<? super E> rename) {
        entries.removeIf(kept.negate());
        entries.forEach(rename);
    }

    /** Every entry of a plain list renamed in place. */
    public static <E> void rename(Collection<E> entries, Consumer<? super E> rename) {
        entries.forEach(rename);
    }
}
