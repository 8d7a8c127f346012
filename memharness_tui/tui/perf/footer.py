"""Textual's key footer, updated in place when the keys it shows change.

Textual's ``Footer`` recomposes (unmounts and mounts every key) on each bindings-updated
signal, one frame after it: a tab switch laid the whole screen out once for the switch, then
again (twice: the new keys' sizes) for the footer, and left ~15 widgets of garbage behind.
This footer skips a rebuild that would show the same keys, and otherwise rewrites the keys it
already has (hiding the ones it no longer needs, adding only missing ones) at once, inside the
signal — so the footer's change lands in the same layout and frame as the focus change that
caused it. What is shown is unchanged: each key is the same ``FooterKey`` with the same text,
classes and tooltip that ``Footer.compose`` would have built. Grouped keys (a binding group of
several keys) are not rewritten in place; they fall back to the full rebuild.

Textual internals it uses (all here, in ``perf/``): ``textual.widgets._footer.FooterKey``,
``Footer._bindings_ready``, a widget's ``_layout_required`` / ``_repaint_required`` /
``_clear_arrangement_cache`` / ``_layout_updates``, ``Screen._dirty_widgets``, and
``ScrollView._size_updated`` / ``_refresh_scrollbars``. Worth (bench/README.md, "Tab
switches"): the rebuild unmounted and mounted 14–21 ``FooterKey``s per switch, ~2 layouts and
14–20 widget resizes — frames of ~30–50 ms each on the loaded bench machine.
"""

from __future__ import annotations

from collections import defaultdict
from typing import TYPE_CHECKING, Any

from rich.cells import cell_len
from textual.app import ComposeResult
from textual.geometry import Size
from textual.widget import Widget
from textual.widgets import Footer
from textual.widgets._footer import FooterKey

if TYPE_CHECKING:
    from textual.binding import Binding
    from textual.screen import Screen

    KeySpec = tuple[str, str, str, str, bool, str]
    """(key, key display, description, action, disabled, tooltip): one ``FooterKey``."""


class KeysFooter(Footer):
    """A ``Footer`` that rewrites its keys in place, in the frame their bindings changed."""

    _shown: tuple[Any, ...] | None = None

    def _signature(self) -> tuple[Any, ...]:
        """Everything ``Footer.compose`` reads from the active bindings."""
        palette = self.show_command_palette and self.app.ENABLE_COMMAND_PALETTE
        return (
            self._bindings_ready, self.compact, palette, self.size.width,
            tuple((b.key, b.action, b.description, b.group, enabled, tooltip, b.tooltip,
                   self.app.get_key_display(b))
                  for (_node, b, enabled, tooltip) in self.screen.active_bindings.values()
                  if b.show or (palette and b.key == self.app.COMMAND_PALETTE_BINDING)),
        )

    # ----- what compose would build -------------------------------------------------------
    def _planned(self) -> tuple[list[KeySpec], KeySpec | None] | None:
        """The plain keys and the palette key ``Footer.compose`` would yield, in order;
        None when it would build a key group (not rewritten in place)."""
        active = self.screen.active_bindings
        by_action: defaultdict[str, list[tuple[Binding, bool, str]]] = defaultdict(list)
        for _node, binding, enabled, tooltip in active.values():
            if binding.show:
                by_action[binding.action].append((binding, enabled, tooltip))
        groups: defaultdict[object, int] = defaultdict(int)
        for multi in by_action.values():
            groups[multi[0][0].group] += 1
        if any(group is not None and n > 1 for group, n in groups.items()):
            return None  # compose groups consecutive keys; leave that to it
        keys: list[KeySpec] = []
        for multi in by_action.values():
            binding, enabled, tooltip = multi[0]
            keys.append((binding.key, self.app.get_key_display(binding), binding.description,
                         binding.action, not enabled, tooltip))
        palette: KeySpec | None = None
        if self.show_command_palette and self.app.ENABLE_COMMAND_PALETTE:
            found = active.get(self.app.COMMAND_PALETTE_BINDING)
            if found is not None:
                _node, binding, enabled, _tooltip = found
                palette = (binding.key, self.app.get_key_display(binding), binding.description,
                           binding.action, not enabled, binding.tooltip or binding.description)
        return self._fit(keys, palette), palette

    def _fit(self, keys: list[KeySpec], palette: KeySpec | None) -> list[KeySpec]:
        """The keys that fit whole beside the palette key: a key that would be cut (or pushed
        past the edge) is left out, ``DROP_FIRST`` first, then from the last, never Help (every
        key is in its list and in the palette). Unknown width (before layout): all of them."""
        width = self.size.width
        if width <= 0:
            return keys
        pad = 2 if self.compact else 3  # the key's and the description's padding (+ margin)
        room = width - (_width(palette, pad) + 2 if palette is not None else 0)
        kept = list(keys)
        while kept and sum(_width(k, pad) for k in kept) > room:
            order = [i for a in DROP_FIRST for i, k in enumerate(kept) if k[3] == a]
            order += [i for i in range(len(kept) - 1, -1, -1) if kept[i][3] not in KEEP]
            if not order:
                break
            del kept[order[0]]
        return kept

    def on_resize(self) -> None:
        """Another width may fit other keys (``_fit``)."""
        if self._bindings_ready and self._signature() != self._shown:
            self._update_in_place()

    # ----- updating -----------------------------------------------------------------------
    def on_mount(self) -> None:
        # Footer's own subscription (kept) is posted: it runs after the frame that shows the
        # focus change, and recomposes one more frame later. This one runs inside the signal.
        self.screen.bindings_updated_signal.subscribe(self, self._bindings_changed_now,
                                                      immediate=True)

    def _bindings_changed_now(self, screen: Screen) -> None:
        """``Footer.bindings_changed`` without waiting: rewrite the keys in place now (its
        deferred recompose then finds them shown and does nothing)."""
        self._bindings_ready = True
        if screen.app.app_focus and self.is_attached and screen is self.screen:
            self._update_in_place()

    async def recompose(self) -> None:
        if not self.is_attached:
            return
        signature = self._signature()
        if signature == self._shown:
            return
        self._shown = signature
        await super().recompose()

    def _update_in_place(self) -> None:
        """Show the active keys now by rewriting the keys there are; else leave it to
        the deferred recompose."""
        signature = self._signature()
        if signature == self._shown:
            return
        planned = self._planned()
        if planned is None:
            return
        keys, palette_spec = planned
        plain: list[FooterKey] = []
        palette: FooterKey | None = None
        for child in self.children:
            if not isinstance(child, FooterKey) or child.has_class("-grouped"):
                return  # a key group is shown: the full rebuild replaces it
            if child.has_class("-command-palette"):
                palette = child
            else:
                plain.append(child)
        if (palette is None) != (palette_spec is None) and (palette is not None or plain):
            return  # the palette key comes or goes once keys are shown: rare, rebuild
        self._shown = signature
        with self.app.batch_update():
            for widget, spec in zip(plain, keys, strict=False):
                _rewrite(widget, spec)
                widget.display = True
            for widget in plain[len(keys):]:
                widget.display = False
            if palette is not None and palette_spec is not None:
                _rewrite(palette, palette_spec)
            new = [self._new_key(spec) for spec in keys[len(plain):]]
            if palette is None and palette_spec is not None:
                new.append(self._new_key(palette_spec, classes="-command-palette"))
            if new:
                self.mount(*new, before=palette)
        self._refresh_now([*plain, *([palette] if palette is not None else []), self])

    def _refresh_now(self, widgets: list[Widget]) -> None:
        """Hand the widgets' refresh requests to the screen now, as each one's idle handler
        (``Widget._check_refresh``) would once it runs.

        Those handlers run after the screen's next frame when a focus change starts it (a tab
        switch shows its pane at once): the keys then cost a second layout and frame. Handed
        over here, they are laid out and painted in that first frame.
        """
        screen = self.screen
        layout = False
        for widget in widgets:
            if widget._layout_required:
                widget._layout_required = False
                layout = True
                for ancestor in widget.ancestors:
                    if not isinstance(ancestor, Widget):
                        break
                    ancestor._clear_arrangement_cache()
                    ancestor._layout_updates += 1
                    if not ancestor.styles.auto_dimensions:
                        break
            if widget._repaint_required:
                widget._repaint_required = False
                if widget.display:
                    screen._dirty_widgets.add(widget)
        if layout:
            screen.refresh(repaint=False, layout=True)
        else:
            screen.check_idle()

    def _new_key(self, spec: KeySpec, classes: str = "") -> FooterKey:
        """The key ``Footer.compose`` would build (and ``compose`` below would adjust)."""
        key, display, description, action, disabled, tooltip = spec
        widget = _Key(key, display, description, action, disabled=disabled,
                      tooltip=tooltip, classes=classes)
        if not classes:  # start where its data binding puts it: no restyle on mount (the
            # palette key is not bound and keeps its own compact style)
            with self._context():  # data_bind binds to the node whose context is active
                widget.data_bind(compact=Footer.compact)
            widget.set_reactive(FooterKey.compact, self.compact)
        return widget

    def compose(self) -> ComposeResult:
        if not self._bindings_ready:
            return
        planned = self._planned()
        if planned is None:  # key groups: Textual's own
            for widget in super().compose():
                if isinstance(widget, FooterKey) and "compact" in (widget._reactive_connect or {}):
                    widget.set_reactive(FooterKey.compact, self.compact)
                yield widget
            return
        keys, palette = planned
        self.styles.grid_size_columns = len(keys)  # as Footer.compose
        for spec in keys:
            yield self._new_key(spec)
        if palette is not None:
            yield self._new_key(palette, classes="-command-palette")

    def _size_updated(self, size: Size, virtual_size: Size, container_size: Size,
                      layout: bool = True) -> bool:
        return super()._size_updated(size, virtual_size, container_size, layout=False)

    def _refresh_scrollbars(self) -> None:
        """Show or hide the scrollbars as Textual does, without asking for another layout:
        the footer's are ``scrollbar-size: 0 0`` (keys wider than the screen scroll it), so
        showing one moves nothing. Textual asked for a second layout of the screen whenever
        a tab's keys started or stopped overflowing."""
        pending = {bar: (bar._layout_required, bar._repaint_required)
                   for bar in self._footer_bars()}
        super()._refresh_scrollbars()
        if self.styles.scrollbar_size_horizontal or self.styles.scrollbar_size_vertical:
            return  # restyled to take room: keep Textual's layout
        # Nor a repaint: a bar of no size draws nothing and the footer looks the same. (It
        # came a frame after a tab switch whose keys start or stop overflowing.) A bar made
        # just now had nothing pending.
        for bar in self._footer_bars():
            layout, repaint = pending.get(bar, (False, False))
            bar._layout_required = bar._layout_required and layout
            bar._repaint_required = bar._repaint_required and repaint

    def _footer_bars(self) -> list[Widget]:
        """The footer and its scrollbars as far as they exist (Textual makes them on demand)."""
        bars = (self, self._horizontal_scrollbar, self._vertical_scrollbar)
        return [bar for bar in bars if bar is not None]


DROP_FIRST = ("back_to_now", "reload")
"""Actions whose keys give way first when the footer is too narrow (the rest: from the last)."""
KEEP = ("help", "app.help")
"""Never left out: Help lists every key."""


def _width(spec: KeySpec, pad: int) -> int:
    """The cells a key takes in the footer: its key, a space, its description, the padding."""
    _key, display, description, *_ = spec
    return cell_len(display) + cell_len(description) + pad if description else cell_len(display)


class _Key(FooterKey):
    """A ``FooterKey`` whose new size does not ask for another layout of the screen.

    Textual answers any widget's size change, seen during a layout, with a second layout of
    the whole screen (the widget's ``virtual_size`` is a layout reactive). A key's size comes
    from its own text, which the layout that measured it already placed; the footer's (the
    override above) only bounds its scrolling, and its keys are placed the same either way.
    """

    def _size_updated(self, size: Size, virtual_size: Size, container_size: Size,
                      layout: bool = True) -> bool:
        return super()._size_updated(size, virtual_size, container_size, layout=False)


def _rewrite(widget: FooterKey, spec: KeySpec) -> None:
    """Make ``widget`` the key ``FooterKey(*spec)`` would be; lay out only if its width moves."""
    key, display, description, action, disabled, tooltip = spec
    now = (widget.key, widget.key_display, widget.description, widget.action,
           widget._disabled, widget.tooltip)
    if now == (key, display, description, action, disabled, tooltip or None):
        return
    same_width = (cell_len(widget.key_display) == cell_len(display)
                  and cell_len(widget.description) == cell_len(description)
                  and bool(widget.description) == bool(description))
    widget.key = key
    widget.key_display = display
    widget.description = description
    widget.action = action
    widget._disabled = disabled
    widget.set_class(disabled, "-disabled")
    widget.tooltip = tooltip or None
    widget.refresh(layout=not same_width)
