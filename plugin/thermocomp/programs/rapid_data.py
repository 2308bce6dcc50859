"""RAPID data as the walker of :mod:`thermocomp.programs.rapid` reads them: what a datum holds (:class:`_Data`), the
record types, predefined data and routines of the RAPID base, declarations, expressions (with RAPID's precedence and
checks) and the assignments that change data. Units as RAPID writes them (mm, degrees, quaternions ``(w, x, y, z)``)
until a transform is built (SI).
"""

from __future__ import annotations

import dataclasses
import json
import math
import operator
import re
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from lark import Token, Tree

from thermocomp._typing import FloatArray
from thermocomp.programs.grammars import line_col, span_of
from thermocomp.programs.model import MAX_MOTION_VALUE, Finding
from thermocomp.programs.rapid_functions import FUNCTIONS, INT_MAX, NUM_MAX, FunctionError, evaluate_function
from thermocomp.programs.writer import NUMBER

#: Most calls of the task's own FUNCs evaluated one inside the other.
MAX_FUNC_DEPTH = 16

#: Most elements of an array declared without a value that are held element by element (larger: not followed).
MAX_UNSET_ELEMENTS = 100_000

#: The atomic types whose assignments are followed, and the Python type of their values.
_ATOMIC: dict[str, type] = {"num": float, "dnum": float, "bool": bool, "string": str}

#: The constructs decided only while running that mark what they may assign changed from their start
#: (:meth:`.rapid_flow._Flow.run_unresolved`).
_BRANCHING = frozenset({"if_stmt", "compact_if", "test_stmt", "while_stmt", "for_stmt"})
#: The nodes that may change a datum (:meth:`_Declarations.changed_tokens`).
_CHANGING = frozenset({"assign", "call", "func_call"})

#: An item of a ``NUMBERS`` token's list (rapid.lark: nested at most three deep): a number or a bracketed list.
_ITEM = re.compile(r"\[(?:[^][]|\[[^][]*\])*\]|[^][,\s]+")

#: Record types of RAPID data and their components, in order (ABB RAPID reference, "Data types").
RECORDS: dict[str, tuple[tuple[str, str], ...]] = {
    "robtarget": (("trans", "pos"), ("rot", "orient"), ("robconf", "confdata"), ("extax", "extjoint")),
    "jointtarget": (("robax", "robjoint"), ("extax", "extjoint")),
    "pos": (("x", "num"), ("y", "num"), ("z", "num")),
    "orient": (("q1", "num"), ("q2", "num"), ("q3", "num"), ("q4", "num")),
    "confdata": (("cf1", "num"), ("cf4", "num"), ("cf6", "num"), ("cfx", "num")),
    "robjoint": tuple((f"rax_{i}", "num") for i in range(1, 7)),
    "extjoint": tuple((f"eax_{c}", "num") for c in "abcdef"),
    "pose": (("trans", "pos"), ("rot", "orient")),
    "tooldata": (("robhold", "bool"), ("tframe", "pose"), ("tload", "loaddata")),
    "wobjdata": (("robhold", "bool"), ("ufprog", "bool"), ("ufmec", "string"), ("uframe", "pose"),
                 ("oframe", "pose")),
    "speeddata": (("v_tcp", "num"), ("v_ori", "num"), ("v_leax", "num"), ("v_reax", "num")),
    "loaddata": (("mass", "num"), ("cog", "pos"), ("aom", "orient"), ("ix", "num"), ("iy", "num"), ("iz", "num")),
}

_IDENTITY_POSE = [[0.0, 0.0, 0.0], [1.0, 0.0, 0.0, 0.0]]

#: RAPID's records whose zero value holds a zero quaternion, no rotation: a ``VAR`` of one declared without a value has
#: none known (a jointtarget, pos or speeddata starts at zeros, as a num does).
_ROTATIONS = frozenset(("orient", "pose", "robtarget", "tooldata", "wobjdata", "loaddata"))

#: The components of a speeddata and a zonedata with their units (ABB RAPID reference, "speeddata": the TCP's, the
#: reorientation's, the linear and rotating external axes' speeds; "zonedata": after ``finep``, the TCP's, the
#: reorientation's and the external axes' zone radii, then the zone sizes of the reorientation and the axes), and
#: the largest value of each unit: :data:`.model.MAX_MOTION_VALUE` in SI (vmax is 5,000 mm/s, z200 200 mm).
MOTION_UNITS = {"speeddata": (("v_tcp", "mm/s"), ("v_ori", "deg/s"), ("v_leax", "mm/s"), ("v_reax", "deg/s")),
                "zonedata": (("finep", ""), ("pzone_tcp", "mm"), ("pzone_ori", "mm"), ("pzone_eax", "mm"),
                             ("zone_ori", "deg"), ("zone_leax", "mm"), ("zone_reax", "deg"))}
MOTION_BOUNDS = {"mm/s": MAX_MOTION_VALUE * 1e3, "deg/s": math.degrees(MAX_MOTION_VALUE), "mm": MAX_MOTION_VALUE * 1e3,
                 "deg": math.degrees(MAX_MOTION_VALUE)}

#: The data types whose data the system parameters define, not a module (ABB RAPID reference: ``signalxx`` and
#: ``mecunit`` "must not be defined in the program"; an Integrated Vision ``cameradev`` is named in its
#: configuration): a name of one passed to a routine's parameter of that type is declared in no module.
CONFIGURED_TYPES = frozenset(("signaldi", "signaldo", "signalai", "signalao", "signalgi", "signalgo", "mecunit",
                              "cameradev"))

#: Predefined data of the RAPID base (ABB RAPID reference: tool0, wobj0, load0,
#: speeddata v5..v7000 and vmax with v_ori 500 deg/s, zonedata).
PREDEFINED: dict[str, tuple[str, object]] = {
    "tool0": ("tooldata", [True, _IDENTITY_POSE, [0.001, [0.0, 0.0, 0.001], [1.0, 0.0, 0.0, 0.0], 0.0, 0.0, 0.0]]),
    "wobj0": ("wobjdata", [False, True, "", _IDENTITY_POSE, _IDENTITY_POSE]),
    "load0": ("loaddata", [0.0, [0.0, 0.0, 0.0], [1.0, 0.0, 0.0, 0.0], 0.0, 0.0, 0.0]),
    "vmax": ("speeddata", [5000.0, 500.0, 5000.0, 1000.0]),
    **{f"v{v}": ("speeddata", [float(v), 500.0, 5000.0, 1000.0])
       for v in (5, 10, 20, 30, 40, 50, 60, 80, 100, 150, 200, 300, 400, 500, 600, 800, 1000, 1500, 2000,
                 2500, 3000, 4000, 5000, 6000, 7000)},
    **{name: ("zonedata", None) for name in
       ("fine", "z0", "z1", "z5", "z10", "z15", "z20", "z30", "z40", "z50", "z60", "z80", "z100", "z150", "z200")},
    "true": ("bool", True),
    "false": ("bool", False),
}

#: The routines of the RAPID base (ABB, "Technical reference manual - RAPID Instructions, Functions and Data types")
#: by kind (a function's name ends in ``()``). ``passive``: instructions that neither move the robot nor branch (I/O,
#: messages, files, interrupts set up...): passed over. ``moving``: those that move the robot or an axis by themselves
#: or tie later motions to what is known only while running: unsupported where the entry runs them. Every other kind
#: lists the arguments a call writes (its ``INOUT``, ``VAR`` and ``PERS`` parameters): places among the required ones
#: (0-based), the optional ones' ``\Name``, ``*`` every one (:data:`WRITES`, :meth:`_Declarations.changed_tokens`).
BASE_ROUTINES: dict[str, str] = {
    "passive": "CornerPathWarning AliasCamera AliasIOReset CamFlush CamLoadJob CamReqImage CamSetExposure "
               "CamSetParameter CamSetProgramMode CamSetRunMode CamStartLoadJob CamWaitLoadJob CheckProgRef IOBusStart "
               "SetupCyclicBool RemoveCyclicBool RemoveAllCyclicBool ResetPPMoved TryInt TuneReset FricIdInit "
               "FricIdEvaluate FricIdSetFricLevels HollowWristReset ReadBlock WriteBlock WriteVar SenDevice STTune "
               "STTuneReset SafetyControllerSyncRequest SystemStopAction TPWrite TPErase ErrWrite ErrLog SetDO SetAO "
               "SetGO Set Reset PulseDO InvertDO AccSet SingArea GripLoad Stop Break ClkStart ClkStop ClkReset PathResol "
               "SoftAct SoftDeact StopMove StartMove StopMoveReset PDispOff EOffsOff CorrClear CorrDiscon IDelete ISleep IWatch "
               "IDisable IEnable Load MechUnitLoad TriggIO TriggEquip TriggInt TriggSpeed SetDataSearch WaitLoad UnLoad "
               "Comment MotionSup WaitRob SpeedRefresh PathAccLim WorldAccLim SocketBind SocketClose SocketConnect "
               "SocketListen SocketSend SocketSendTo Close Write WriteAnyBin WriteBin WriteStrBin WriteRawBytes Rewind "
               "ClearIOBuff CopyFile RemoveFile RenameFile MakeDir RemoveDir CloseDir TPShow UIShow ErrRaise IVarValue "
               "IError ISignalDI ISignalDO ISignalAI ISignalAO ISignalGI ISignalGO ITimer IPers IRMQMessage SpyStart "
               "SpyStop SetDataVal SetAllDataVal WriteCfgData SaveCfgData RMQSendMessage RMQEmptyQueue IOEnable "
               "IODisable AliasIO TextTabInstall PathRecStart PathRecStop MotionProcessModeSet EGMReset EGMStop "
               "EGMSetupAI EGMSetupAO EGMSetupGI EGMSetupLTAPP EGMSetupUC EGMActJoint EGMActPose EGMActMove EGMStreamStart "
               "EGMStreamStop "
               "SetTPHandlerCfg StartLoad CancelLoad EraseModule Save WZEnable WZDisable WZFree SkipWarn ResetRetryCount "
               "TriggCheckIO TriggRampAO TriggStopProc TriggDataCopy TriggDataReset TestSignDefine TestSignReset "
               "SpeedLimAxis SpeedLimCheckPoint ActEventBuffer DeactEventBuffer SetLeadThrough DitherAct DitherDeact "
               "ArcRefresh ArcKill "
               # the IRB 14000 (YuMi) SmartGripper add-in's instructions (ABB, HandDriver.sys, rev. 1.10): they move
               # its fingers, vacuum and blow, never the arm; a module of the task that declares one is followed
               "Hand_Initialize Hand_DoCalibrate Hand_JogInward Hand_JogOutward Hand_MoveTo Hand_GripInward "
               "Hand_GripOutward Hand_Stop Hand_WaitMovingCompleted Hand_WaitForExpectedState Hand_SendCommand "
               "Hand_SetMaxSpeed Hand_SetHoldForce Hand_TurnOnBlow1 Hand_TurnOffBlow1 Hand_TurnOnBlow2 "
               "Hand_TurnOffBlow2 Hand_TurnOnVacuum1 Hand_TurnOffVacuum1 Hand_TurnOnVacuum2 Hand_TurnOffVacuum2 "
               "Hand_CastChirality Hand_ChangeChirality",
    "moving": "LoadId ManLoadIdProc WaitSensor SyncToSensor DropSensor SupSyncSensorOn SupSyncSensorOff SyncMoveResume "
              "SyncMoveSuspend SyncMoveUndo STOpen STClose STCalib STIndGun STIndGunReset SearchExtJ MoveExtJ "
              "ArcMoveExtJ PDispOn PDispSet EOffsOn EOffsSet CorrCon CorrWrite SyncMoveOn SyncMoveOff IndAMove IndCMove "
              "IndDMove IndRMove ActUnit DeactUnit StorePath RestoPath ClearPath ExitCycle SetSysData "
              "TuneServo CirPathMode EGMRunJoint EGMRunPose EGMMoveL EGMMoveC WaitWObj DropWObj ArcRepL "
              "PathRecMoveBwd PathRecMoveFwd StepBwdPath StartMoveRetry ContactL FCAct FCDeact FCPress1LStart FCPressL "
              "FCPressC FCPressEnd CSSAct CSSDeact CSSDeactMoveL IndReset",
    "0": "Incr Decr Add Clear BitSet BitClear WaitTestAndSet TestAndSet() OpenDir ClearRawBytes SocketCreate "
         "BookErrNo GetTrapData RMQFindSlot RMQGetMessage RMQReadWait EGMGetId WZBoxDef WZCylDef WZSphDef "
         "WZHomeJointDef WZLimJointDef WZLimSup WZDOSet",
    "1": "StrToVal() Open ReadDir() ReadAnyBin ReadRawBytes PackRawBytes GetDataVal RMQGetMsgData IOBusState "
         "CamGetResult",
    "2": "UnpackRawBytes CopyRawBytes PackDNHeader RMQSendWait MToolRotCalib",
    "3": "SToolRotCalib",
    "0 1": "GetNextSym()",
    "3 4": "CalcRotAxisFrame() CalcRotAxFrameZ() DefAccFrame()",
    "4 5 6": "MToolTCPCalib SToolTCPCalib",
    "*": "GetJointData",
    "0 \\BreakFlag": "TPReadFK TPReadNum TPReadDnum",
    "\\BreakFlag": "UIMessageBox() UINumEntry() UINumTune() UIAlphaEntry() UIListView()",
    "\\Result \\BreakFlag": "UIMsgBox",
    "\\TimeFlag": "WaitDI WaitDO WaitUntil",
    "\\ValueAtTimeout \\TimeFlag": "WaitAI WaitAO WaitGI WaitGO",
    "1 \\ClientAddress": "SocketAccept",
    "\\Str \\RawData \\Data \\NoRecBytes": "SocketReceive",
    "1 2 \\Str \\RawData \\Data \\NoRecBytes": "SocketReceiveFrom",
    "0 \\ObjectName": "GetSysData",
    "2 \\ListNo": "ReadCfgData",
    "\\TaskNo": "GetTaskName()",
    "\\ErrorNumber": "ArgName() CalcJointT()",
    "1 2 3 \\Title \\Str1 \\Str2 \\Str3 \\Str4 \\Str5": "ReadErrData",
    "\\Header \\SenderId \\UserDef": "RMQGetMsgHeader",
    "\\Num \\Bool \\Str": "CamGetParameter",
    "": "CalcRobT() CRobT() CJointT() CPos() CTool() CWObj() CSpeedOverride() MaxRobSpeed() MaxRobReorientSpeed() "
        "ReadNum() ReadStr() ReadBin() ReadStrBin() ReadMotor() ReadVar() ClkRead() CDate() CTime() GetTime() "
        "GetSysInfo() GetMecUnitName() GetMotorTorque() OpMode() RunMode() IsFile() FileSize() ModExist() IsPers() "
        "IsVar() IsSyncMoveOn() IsStopMoveAct() SocketGetStatus() SocketPeek() RawBytesLen() StrToByte() "
        "ByteToStr() DnumToNum() NumToDnum() DecToHex() HexToDec() StrFormat() BitAnd() BitOr() BitXOr() BitNeg() "
        "BitLSh() BitRSh() BitCheck() BitCheckDnum() DInput() DOutput() AInput() AOutput() GInput() GOutput() "
        "GInputDnum() GOutputDnum() TestDI() TestDO() ValidIO() EGMGetState() FCGetForce() "
        # (the SmartGripper add-in's functions, as its instructions above)
        "Hand_IsCalibrated() Hand_IsCamConnected() Hand_GetActualPos() Hand_GetActualSpd() Hand_GetFingerState() "
        "Hand_GetFingerErrID() Hand_GetVacuumPressure1() Hand_GetVacuumPressure2()",
}
#: The names of each kind, in lower case.
_BY_KIND = {kind: names.lower().split() for kind, names in BASE_ROUTINES.items()}
#: The instructions of kind ``moving``: unsupported where the entry runs them.
UNSUPPORTED_INSTRUCTIONS = frozenset(_BY_KIND.pop("moving"))


def _written(kind: str) -> tuple[tuple[int, ...], frozenset[str]]:
    """The places (``(-1,)``: every one) and the optional names of the arguments a routine of ``kind`` writes."""
    words = kind.split()
    places = (-1,) if words == ["*"] else tuple(int(w) for w in words if w.isdigit())
    return places, frozenset(w[1:].lower() for w in words if w.startswith("\\"))


#: What a call of each routine of the RAPID base writes, by lower-case name (without ``()``).
WRITES = {name.removesuffix("()"): _written(kind) for kind, names in _BY_KIND.items() for name in names}
#: The instructions passed over: every other one of the RAPID base (they move nothing; the data they write change).
PASSIVE_INSTRUCTIONS = frozenset(name for names in _BY_KIND.values() for name in names if "(" not in name)


#: Why a value of ``CalcRobT(jointtarget, tool \\WObj:=wobj)`` is not known here, though its arguments may be.
CALC_ROBT = ("CalcRobT gives the robot's forward kinematics of a jointtarget, which thermocomp does not compute while "
             "reading: the program is read without the robot model (the controller's own, with its calibration); "
             "write the target as a robtarget")


class _Unsupported(Exception):
    """Raised inside the walker; becomes a :class:`Finding`."""

    def __init__(self, message: str, where: Tree | Token) -> None:
        super().__init__(message)
        self.message = message
        self.where = where


class _NotStanding(_Unsupported):
    """Where the robot stands (``CRobT()``) read where it is not known before running (:meth:`.rapid_motions._Motions.
    standing_value`): a datum assigned from it is changed at run time, a refusal of a motion reading it says why."""


class _PathsDiffer(_Unsupported):
    """A FUNC whose ``RETURN`` values differ from path to path (:meth:`.rapid_flow._Flow.func_value`): a datum assigned
    from it is changed at run time, a refusal of a motion reading it says why."""


class _Unknown(_Unsupported):
    """A value known only while running: a datum's (:meth:`_Declarations.lookup`; a ``WaitTime`` of it is noted, not
    timed) or a FOR loop's bounds (followed once, :meth:`_Flow.run_unresolved`)."""


def _construct(node: Tree) -> str:
    """The conditional construct ``node`` as RAPID writes it (a compact IF is an ``IF``)."""
    return "IF" if node.data == "compact_if" else node.data.split("_")[0].upper()


def _is_local(item: Tree) -> bool:
    return isinstance(item.children[0], Token) and item.children[0].type == "LOCAL"


@dataclass
class _Data:
    type: str
    value: object
    node: Tree | None  # the declared value's tree (for its span), if any
    name: str
    declared: Token
    file: int = 0  # the file of ``node`` (an index into the task's files, :attr:`RobotProgram.files`)
    module: int = 0  # the module that declares a module datum (an index into :attr:`.rapid_flow._Flow.scopes`)


@dataclass(frozen=True)
class _Mark:
    """What the path being followed knows of one datum besides its value (:attr:`_Declarations.marks`), replaced as
    the path changes it and joined after a branch (:meth:`.rapid_flow._Flow.join`)."""

    #: The statement from which it is changed at run time (its value is not known); None while it is known.
    changed: Tree | Token | None = None
    #: ``(assignment, construct)``: a join left it different values on different paths, ``changed`` that assignment.
    joined: tuple[Tree, Tree] | None = None
    #: ``(assignment, construct)``: its value is one it may have, given inside a condition or loop not resolved.
    given: tuple[Tree, Tree] | None = None
    #: The construct a path through which left all its parts zero (a join kept its one value from the others).
    zero_left: Tree | None = None
    #: ``(value, statement)``: its value after the followed assignments of a cycle, the first one's statement.
    followed: tuple[object, Tree] | None = None
    #: The construct not resolved from whose start only the array's elements given since are known: the others are
    #: what an earlier pass or cycle through it may have left (held without a value, :meth:`_Declarations._element`).
    left: Tree | None = None


_NO_MARK = _Mark()


@dataclass
class _Running:
    """The assignment or call statement the walker runs (:meth:`.rapid_flow._Flow.run_statement`): where a FUNC its
    expressions call gives module data values (:meth:`_Declarations.evaluate_func`), once."""

    statement: Tree
    #: ``(id of a call, id of its caller's scope)`` of a FUNC that gave module data values -> (that scope, its value
    #: and type): the statement's parts evaluated again (an ``Offs`` of it read for its text) give no value twice.
    done: dict[tuple[int, int], tuple[object, tuple[object, str]]] = dataclasses.field(default_factory=dict)
    #: The module data its FUNCs gave values (lower case): their marks outlive the FUNC's evaluation.
    given: set[str] = dataclasses.field(default_factory=set)
    #: How many values its FUNCs gave module data (a FUNC that called one that gave one is kept in :attr:`done` too).
    gave: int = 0


@dataclass
class _FuncRun:
    """A call of the task's FUNC being evaluated (:meth:`_Declarations.evaluate_func`)."""

    name: str  # as the call writes it
    rtype: str  # the type it returns
    running: _Running | None  # the statement the walker runs, where the call gives module data values
    depth: int  # how many constructs not resolved enclose the call (:attr:`.rapid_flow._Flow._unresolved`)
    caller: dict[str, _Data] | None  # the caller's data (None: the module's only)
    #: The value of each ``RETURN`` reached, with the outermost construct not resolved within the FUNC it stands in.
    values: list[tuple[object, Tree | None]] = dataclasses.field(default_factory=list)


class _Declarations:
    """The walker's data: declarations, lookups, expressions and assignments (mixed into ``rapid._Walker``)."""

    #: While a motion runs, the :attr:`_Mark.given` of the data it reads (:meth:`_Flow.run_tagged`); else None.
    _reading: dict[str, tuple[Tree, Tree]] | None = None
    #: Set by :meth:`_Flow.run`: the data of the routine holding the production loop, kept from cycle to cycle
    #: (:meth:`check_cycles`); its scope and its FOR loops', by id.
    _cycle_scope: dict[str, _Data]
    _cycle_scopes: dict[int, dict[str, _Data]]
    #: Set by :meth:`_Flow.run`: id of an assignment whose value was not known because it reads a datum carried from
    #: cycle to cycle (directly or through data given from one) -> (it, that datum as written) (:meth:`lookup`).
    _behind: dict[int, tuple[Tree, str]]
    #: The task's other modules' nodes: id -> the index of their file (:meth:`written_at`; built when first needed).
    _node_files: dict[int, int] | None = None
    #: The statement being run (:class:`_Running`); None elsewhere (a condition, a loop's bounds, a look ahead).
    running: _Running | None = None
    #: Whether the outermost FUNC being evaluated is called from :attr:`running`'s statement (:meth:`evaluate_func`).
    _gives = False

    # ----- findings
    def unsupported_at(self, message: str, where: Tree | Token) -> None:
        """A refusal at ``where``, in its own file (a FUNC of another module evaluated from this one's expression)."""
        note = Finding(message, *line_col(where), self.node_file(where, self.file))
        datum, changed, _ = message.partition(" is changed at run time")
        if changed:  # (one refusal a place and datum: a loop's first pass under a construct names the construct,
            key = dataclasses.replace(note, message=datum)  # a later pass the assignment inside it; the first)
            if key in self._seen:
                return
            self._seen.add(key)
        self.note_once(note, self.unsupported)

    def note_once(self, note: Finding, into: list[Finding] | None = None) -> None:
        """``note`` added to the notes (or ``into``) unless given already (a construct met in every pass or call)."""
        if note not in self._seen:
            self._seen.add(note)
            (self.notes if into is None else into).append(note)

    def node_file(self, node: Tree | Token, default: int) -> int:
        """The task's file that holds ``node`` (a subtree or a token) where it is in another module's tree, else
        ``default``."""
        if self._node_files is None:
            self._node_files = {id(n): file for file, m in enumerate(self.task.modules, 1)
                                for tree in m.tree.iter_subtrees() for n in (tree, *tree.children)}
        return self._node_files.get(id(node), default)

    def written_at(self, node: Tree | Token, column: bool = True) -> str:
        """``line L, column C`` (``line L``) of ``node``; ``FILE:L:C`` (``FILE:L``) in another file of the task."""
        line, col = line_col(node)
        file = self.node_file(node, 0)
        if file == self.file:
            return f"line {line}, column {col}" if column else f"line {line}"
        return f"{self._files[file][0]}:{line}" + (f":{col}" if column else "")

    # ----- types and declarations
    def fields_of(self, dtype: str) -> tuple[tuple[str, str], ...] | None:
        """The components (name, type) of record type ``dtype`` (RAPID's or the task's); None for any other."""
        return RECORDS.get(dtype) or self.records.get(dtype)

    def base_type(self, name: str) -> str:
        """``name`` (lower case) through the task's ``ALIAS`` declarations (``ALIAS num level;``: level is num)."""
        seen = {name}
        while name in self.aliases and self.aliases[name] not in seen:
            name = self.aliases[name]
            seen.add(name)
        return name

    def declare_type(self, decl: Tree) -> None:
        """A ``RECORD`` (its components, in order) or an ``ALIAS`` of the task."""
        names = [str(c).lower() for c in decl.children if isinstance(c, Token) and c.type == "NAME"]
        if decl.data == "alias_decl":
            self.aliases[names[1]] = names[0]
            return
        fields = [[str(c).lower() for c in f.children if isinstance(c, Token)] for f in decl.children
                  if isinstance(f, Tree) and f.data == "record_field"]
        self.records[names[0]] = tuple((name, self.base_type(ftype)) for ftype, name in fields)

    def declare(self, decl: Tree, scope: dict[str, _Data]) -> None:
        """A data declaration into ``scope`` (:attr:`module_data` or a routine's): its type, value (known) and text."""
        at = next(i for i, c in enumerate(decl.children) if isinstance(c, Tree))  # (the storage, after LOCAL, TASK)
        storage, (type_token, name_token, *rest) = str(decl.children[at].children[0]).lower(), decl.children[at + 1:]
        dims = rest.pop(0) if rest and isinstance(rest[0], Tree) and rest[0].data == "dims" else None
        value_node = rest[0] if rest else None
        dtype, key, local = self.base_type(str(type_token).lower()), str(name_token).lower(), (
            None if scope is self.module_data else scope)
        try:  # (an initial value that cannot be evaluated: any use of it is unsupported)
            value = None if value_node is None else self.evaluate(value_node, local)
            sizes = [] if dims is None else [
                self.check_integer(self._number(d, local), f"{name_token}'s size", d) for d in dims.children]
            if sizes and min(sizes) < 1:  # (the controller loads no array of no element, used or not)
                raise self.error(f"{name_token}'s size: expected at least 1 element a dimension, got {min(sizes)}",
                                 dims.children[sizes.index(min(sizes))])
            if value_node is not None:
                self.check_array(value, sizes, dtype, str(name_token), value_node)
            elif storage == "var" and math.prod(sizes) <= MAX_UNSET_ELEMENTS:
                value = self.default_value(dtype)  # (RAPID: a VAR without a value starts at 0, FALSE, "")
                for n in reversed(sizes):
                    value = [_copy(value) for _ in range(n)]
        except _Unsupported:
            value = None
        first = scope.get(key) if local is None else None  # (what this module sees of that name)
        rank = "" if dims is None else "{" + "," * (len(dims.children) - 1) + "}"  # (robtarget{,}: two dimensions)
        task = "task" in {str(c).lower() for c in decl.children[:at]}
        if first is not None and (first.module == self.module or not _is_local(decl)):  # RAPID refuses it (two of one
            # name in the module, or two global ones in the task): which one counts? (a LOCAL one hides a global one)
            where = (f"in two modules of the task: {self._files[first.file][0]} (line {first.declared.line}) and here"
                     if first.module != self.module else f"twice in the module (first at line {first.declared.line})")
            # but a PERS declared in several modules is one persistent of the task (as RobotWare links a PERS name;
            # the RAPID manuals read here do not state it): one of its type, of no initial value or the same, is that one
            pers = first.module != self.module and storage == "pers" and not task and self.storages[key] == {"pers"}
            same = pers and first.type == dtype + rank and (
                value_node is None or _known(value) and _same(value, first.value))
            if same and (value_node is None or dtype not in ("robtarget", "jointtarget")):
                return
            why = "thermocomp writes a target in one declaration only" if same else "these give it other types or values"
            rule = (": a PERS declared in several modules is one persistent of the task, "
                    f"and {why}") if pers else ""
            raise self.error(f"{name_token} is declared {where}{rule}", name_token)
        self.storages.setdefault(key, set()).update({storage, "task"} if task else {storage})
        (scope if local is not None else self.scopes.table(self.module, "data", _is_local(decl)))[key] = _Data(
            dtype + rank, value, value_node, str(name_token), name_token, file=self.file, module=self.module)

    def check_array(self, value: object, sizes: list[int], dtype: str, name: str, where: Tree, level: int = 0) -> None:
        """``value`` holds ``sizes`` elements along each dimension of array ``name`` (nested lists, one level a
        dimension; no sizes: one value), each of the shape of RAPID type ``dtype`` and, a zonedata, within its bounds
        (a zone moves no target: checked where it is written, not at the motion); else an :class:`InputError`."""
        if level == len(sizes):
            self.check_record(value, dtype, where)
            if dtype == "zonedata":
                self.check_motion_data(dtype, value, where)
            return
        if not isinstance(value, list) or len(value) != sizes[level]:
            raise self.error(f"{name}{{{', '.join(map(str, sizes))}}}: expected {sizes[level]} elements at "
                             f"dimension {level + 1}, got {_describe(value)}", where)
        for item in value:
            self.check_array(item, sizes, dtype, name, where, level + 1)

    def default_value(self, dtype: str, depth: int = 0) -> object:
        """The value a ``VAR`` of ``dtype`` declared without one starts with (0, FALSE, "", records component by
        component); None for RAPID's records holding an orient (a zero quaternion is no rotation) and types not
        known here."""
        if dtype in _ATOMIC:
            return _ATOMIC[dtype]()
        fields = None if dtype in _ROTATIONS or depth > 8 else self.fields_of(dtype)
        return None if fields is None else [self.default_value(t, depth + 1) for _, t in fields]

    def check_record(self, value: object, dtype: str, where: Tree | Token, what: str = "") -> None:
        """``value`` has the shape of RAPID type ``dtype``; else an :class:`InputError` at ``where``, its message
        starting with ``what`` (``Offs: argument 1: ``)."""
        fields = self.fields_of(dtype)
        if fields is None:
            return
        if not isinstance(value, list) or len(value) != len(fields):
            raise self.error(f"{what}expected {'an' if dtype[0] in 'aeiou' else 'a'} {dtype} of {len(fields)} components "
                             f"({', '.join(f for f, _ in fields)}), got {_describe(value)}", where)
        for (field_name, field_type), item in zip(fields, value):
            if field_type == "num" and (isinstance(item, bool) or not isinstance(item, float)):
                raise self.error(f"{what}{dtype}.{field_name}: expected a number, got {_describe(item)}", where)
            self.check_record(item, field_type, where, what)

    def check_motion_data(self, dtype: str, value: object, where: Tree | Token, what: str = "") -> None:
        """Refuse a speeddata or zonedata ``value`` with a component below 0 or beyond :data:`MOTION_BOUNDS` in its
        unit (1e30 or a negative radius, read and written back as they came), at ``where``, the message starting with
        ``what``; a value of another shape is not one known here."""
        units = MOTION_UNITS[dtype]
        if isinstance(value, list) and len(value) == len(units):
            for (field, unit), item in zip(units, value):
                if unit and isinstance(item, float) and not 0 <= item <= MOTION_BOUNDS[unit]:
                    raise self.error(f"{what}{dtype} {field}: expected a {'speed' if unit[-2:] == '/s' else 'zone'} "
                                     f"from 0 to {MOTION_BOUNDS[unit]:g} {unit}, got {item:g}", where)

    def check_zone_text(self, text: str, where: Tree | Token) -> None:
        """:meth:`check_motion_data` of a zonedata written as a literal in a motion (``[FALSE,10,15,15,1.5,15,1.5]``);
        a named zone is checked where it is declared (and a predefined one needs none)."""
        items = text[1:-1].split(",") if text.startswith("[") else []
        if items and items[0].strip().upper() in ("TRUE", "FALSE") and all(NUMBER.fullmatch(x.strip())
                                                                            for x in items[1:]):
            self.check_motion_data("zonedata", [True, *(float(x) for x in items[1:])], where)

    # ----- arrays
    def element(self, node: Tree, local) -> tuple[_Data, tuple[int, ...]]:
        """The array datum and the 0-based indices of ``name{i}`` or ``name{i, j}`` (RAPID counts from 1)."""
        if not (isinstance(node.children[0], Tree) and node.children[0].data == "name"):
            raise _Unsupported("an index into anything but a named array is not followed", node)
        data = self.lookup(node.children[0].children[0], local)
        return data, tuple(self._indices(data.value, data.type, node, local, data.name))

    def _indices(self, items: object, dtype: str, node: Tree, local, name: str) -> list[int]:
        """The 0-based indices of ``node`` (``a{i, j}``) into the array ``items`` of type ``dtype``, datum ``name``."""
        if not dtype.endswith("}") or not isinstance(items, list):
            raise _Unsupported(f"{name} is not an array of known values", node)
        if len(node.children) - 1 != dtype.count(",") + 1:
            raise self.error(f"{name} has {dtype.count(',') + 1} dimension(s), got {len(node.children) - 1} indices",
                             node)
        path = []
        for index in node.children[1:]:
            i = self.check_integer(self._number(index, local), "array index", node)
            if not 1 <= i <= len(items):
                raise self.error(f"index {i} outside {name}{{1..{len(items)}}}", node)
            path.append(i - 1)
            items = items[i - 1]
        return path

    def element_span(self, value_node: Tree | Token, path: tuple[int, ...]) -> tuple[int, int, Tree | None]:
        """Start and end offsets of the element at ``path`` of an array's declared value, and its node when it is
        one (an element of an aggregate; None inside one ``NUMBERS`` token)."""
        node = value_node
        for depth, i in enumerate(path):
            if not (isinstance(node, Tree) and node.data == "aggregate"):  # one NUMBERS token: its items' offsets
                a, b = span_of(node)[:2]
                for j in path[depth:]:
                    key = ("item spans", self.file_key + a, b)  # (each list scanned once: a FOR loop is linear)
                    if key not in self._cache:
                        self._cache[key] = [m.span() for m in _ITEM.finditer(self.text, a + 1, b - 1)]
                    a, b = self._cache[key][j]
                return a, b, None
            node = node.children[i]
        s = span_of(node)
        return s.start, s.end, node  # type: ignore[return-value]

    # ----- lookups and expressions
    def lookup(self, token: Token, local: dict[str, _Data] | None, unset: bool = False,
               passed_as: str | None = None) -> _Data:
        """The datum ``token`` names, with a value known here (``unset``: or with none, a ``VAR`` declared without a
        value passed on to a routine); :class:`_Unsupported` naming it otherwise. ``passed_as``: the type of the
        parameter it is passed to; one of :data:`CONFIGURED_TYPES` no module declares is the system parameters'."""
        key = str(token).lower()
        if local is not None and key in local:
            data = local[key]
        elif key in self.module_data:  # (this module's LOCAL one, else the task's global one: "Scope rules")
            data = self.module_data[key]
        elif key in PREDEFINED:
            return _Data(*PREDEFINED[key], None, str(token), token)
        elif passed_as in CONFIGURED_TYPES:  # (a signal, a unit or a camera of the system parameters: no value here)
            return _Data(passed_as, None, None, str(token), token)
        elif (hidden := self.scopes.elsewhere("data", key)) is not None:
            raise _Unsupported(f"{token} is declared LOCAL in {self._files[hidden.file][0]} (line "
                               f"{hidden.declared.line}): no other module of the task can read it (the controller "
                               "does not link this reference)", token)
        else:
            raise _Unsupported(f"{token} is not declared in this module (a datum of another module of the task: "
                               "give that module with --module FILE)", token)
        mark = self.marks.get(key, _NO_MARK)
        if mark.changed is not None:
            joined = mark.joined
            if joined is not None and joined[0] is mark.changed:
                raise _Unknown(f"{token} is changed at run time: {self.written_at(joined[0], False)} gives it a "
                                   f"value inside the {_construct(joined[1])} at line {line_col(joined[1])[0]}, "
                                   "whose outcome is known only while running, and another path leaves it another "
                                   "value: its value at this motion is not known", token)
            by = mark.changed  # (a call of a routine found nowhere, or CalcRobT: named, as what may change it)
            by = (f": passed to {by.children[0]}, a routine found in no module of the task, which may change it"
                  if isinstance(by, Tree) and by.data == "call" and isinstance(by.children[0], Token)
                  and self.found_nowhere(str(by.children[0]).lower()) else f": {CALC_ROBT}" if isinstance(by, Tree)
                  and by.data == "assign" and any(str(c.children[0]).lower() == "calcrobt" for c in by.find_data(
                      "func_call")) else "")
            if not by and id(mark.changed) in self.stand_why:  # (assigned where the robot stands, or a FUNC's paths differ)
                by = f": {self.stand_why[id(mark.changed)][1]}"
            behind = self.carried_behind(token)
            if behind is token:
                by += "; it differs from cycle to cycle"
            elif behind is not None:
                by += f"; given from {behind}, which differs from cycle to cycle"
            at = self.written_at(mark.changed)
            construct = mark.changed
            if isinstance(construct, Tree) and construct.data in _BRANCHING:  # (marked at its start, where a pass
                # reads what an earlier pass or cycle left: its line is no assignment, the one inside it is)
                inside = self.changed_inside(construct, key)
                where = ("the counter of" if construct.data == "for_stmt" and str(construct.children[0]).lower() == key
                         else "inside" if inside is None else f"{self.written_at(inside)}, inside")
                at = (f"{where} the {_construct(construct)} at line {line_col(construct)[0]}, whose "
                      f"{'passes are' if construct.data in ('while_stmt', 'for_stmt') else 'outcome is'} known only "
                      "while running")
            raise _Unknown(f"{token} is changed at run time ({at}{by}); its value at this motion is not known", token)
        if data.value is None and not unset:
            how = "without a value" if data.node is None else "with a value known only while running"
            at = "line " if data.file == self.file else f"{self._files[data.file][0]}:"
            raise _Unknown(f"{token} has no value known before the program runs (declared {how} at {at}"
                               f"{data.declared.line})", token)
        if mark.followed is None and (local is None or key not in local or id(local) in self._cycle_scopes):
            self._first_read.setdefault(key, (data.value, token))  # (a routine's own data start afresh every call)
        if self.stood and id(data) in self.stood:  # (computed from where the robot stands: :meth:`assign`)
            self._stood_reads += 1
        if self._reading is not None:  # (a motion running: the branch-given data it reads, :meth:`_Flow.run_tagged`)
            for name in (key, data.name.lower()):
                given = self.marks.get(name, _NO_MARK).given
                if given is not None:
                    self._reading[name] = given
        return data

    def evaluate(self, node: Tree | Token, local: dict[str, _Data] | None) -> object:
        """The value of expression ``node`` (:meth:`evaluate_typed`)."""
        return self.evaluate_typed(node, local)[0]

    def evaluate_typed(self, node: Tree, local: dict[str, _Data] | None) -> tuple[object, str | None]:
        """The value of expression ``node`` and its RAPID type (None for an aggregate) by the kind of node
        (:data:`_EVALUATORS`); :class:`_Unsupported` where it is not known here."""
        return _EVALUATORS[node.data](self, node, local)

    def evaluate_as(self, node, local, dtype: str) -> object:
        """The value of ``node`` given to a datum of ``dtype``: of its kind, its shape, or any for a type not known."""
        if dtype in _ATOMIC:
            value = self.evaluate(node, local)
            if not isinstance(value, _ATOMIC[dtype]) or (dtype != "bool" and isinstance(value, bool)):
                raise _Unsupported(f"a {dtype} given {_describe(value)}", node)
            return value
        if self.fields_of(dtype) is None:
            return self.evaluate(node, local)
        value, vtype = self.evaluate_typed(node, local)
        if vtype is not None and vtype != dtype:
            raise self.error(f"expected a {dtype}, got a {vtype}", node)
        self.check_record(value, dtype, node)
        return value

    def _name(self, node: Tree, local) -> tuple[object, str]:
        data = self.lookup(node.children[0], local)
        left = self.marks.get(str(node.children[0]).lower(), _NO_MARK).left
        if left is not None and not _known(data.value):  # (an array read whole: some elements what a pass may leave)
            raise _Unknown(f"{node.children[0]} is changed at run time ({self.written_at(left)}); its value at this "
                           "motion is not known", node.children[0])
        return data.value, data.type

    def _numbers(self, node: Tree, local) -> tuple[object, None]:
        """The nested lists of floats of a ``NUMBERS`` token (``[[515,0,712],[1,0,0,0]]``, ``.5``, ``9E+09``)."""
        text = str(node.children[0])
        if not all(abs(float(x)) <= NUM_MAX for x in NUMBER.findall(text)):  # (as rapid_motions reads a column)
            raise self.error(f"a number of {text} is out of range (RAPID num holds at most {NUM_MAX:.2g})", node)
        try:
            return json.loads(text, parse_int=float), None
        except ValueError:  # RAPID allows what JSON does not: .5, 5., +5, 09: each number rewritten as JSON first
            return json.loads(NUMBER.sub(lambda m: json.dumps(float(m.group())), text)), None

    def literal(self, node: Tree, local=None) -> tuple[float, str]:
        """A number literal's value; one a controller could not store (beyond 3.4e38, RAPID's ``num``) refused."""
        text = str(node.children[0])
        whole = int(text, 0) if text[1:2] in "xXoObB" and len(text) > 2 else None  # (float() of it overflows)
        value = float(text) if whole is None else float(whole) if abs(whole) <= NUM_MAX else math.inf
        if not abs(value) <= NUM_MAX:
            raise self.error(f"number {node.children[0]!s} is out of range (RAPID num holds at most {NUM_MAX:.2g})", node)
        return value, "num"

    def _unary(self, node: Tree, local) -> tuple[object, str]:
        """``-a``, ``+a`` (of a number or a pos) and ``NOT a`` (of a bool)."""
        value = self.evaluate(node.children[-1], local)
        if node.data == "not_":
            if not isinstance(value, bool):
                raise _Unsupported("NOT of a value that is not a bool", node)
            return not value, "bool"
        if isinstance(value, list) and len(value) == 3 and all(map(_number, value)):  # (-pos, +pos)
            return [(-v if str(node.children[0]) == "-" else v) for v in value], "pos"  # type: ignore[operator]
        if not isinstance(value, float):
            raise _Unsupported("a sign before a value that is not a number", node)
        return (-value if str(node.children[0]) == "-" else value), "num"

    def _component(self, node: Tree, local) -> tuple[object, str]:
        root = self.changed_root(node.children[0])
        left = None if root is None else self.marks.get(str(root).lower(), _NO_MARK).zero_left
        if left is not None:
            raise _Unsupported(f"{root} has no value on a path through the {_construct(left)} at "
                               f"line {line_col(left)[0]} (all its parts zero), and this reads a part of it: its "
                               "value at this motion is not known", node)
        base, btype = self.evaluate_typed(node.children[0], local)
        holder, at, dtype = self._into(base, btype or "", node, local, "")
        return holder[at], dtype

    def _element(self, node: Tree, local) -> tuple[object, str]:
        data, path = self.element(node, local)
        element = data.value
        for i in path:
            element = element[i]  # type: ignore[index]
        left = self.marks.get(str(node.children[0].children[0]).lower(), _NO_MARK).left
        if element is None and left is not None:
            raise _Unknown(f"{node.children[0].children[0]} is changed at run time ({self.written_at(left)}); its "
                           "value at this motion is not known", node.children[0].children[0])
        if element is None:
            raise _Unsupported(f"{data.name}{{{', '.join(str(i + 1) for i in path)}}} has no value known before "
                               f"the program runs (declared without a value at line {data.declared.line})", node)
        return element, data.type[:data.type.index("{")]

    def operation(self, node: Tree, local) -> tuple[object, str]:
        """``a op b`` (:data:`_OPERATORS`), the operands read left to right; ``+`` of strings joins them. Of RAPID's
        ``pos`` and ``orient`` as the RAPID kernel's arithmetic operators define them: ``pos + pos``, ``pos - pos``
        (vector sum, difference), ``num * pos``, ``pos * num`` (scaled), ``pos * pos`` (vector product, mm) and
        ``orient * orient`` (the rotations linked: the quaternion product); any other operands are not computed.
        A chain ``a + b + ... + z`` (or ``AND``, ...) nests on its left: it is followed in a loop, as long as written."""
        chain = [node]
        while isinstance(chain[-1].children[0], Tree) and chain[-1].children[0].data in _OPERATORS:
            chain.append(chain[-1].children[0])
        value: tuple[object, str] = (self.evaluate(chain[-1].children[0], local), "")
        for link in reversed(chain):
            value = self._operate(link, value[0], local)
        return value

    def _operate(self, node: Tree, a: object, local) -> tuple[object, str]:
        """:meth:`operation` of ``node`` whose left operand's value is ``a``."""
        op, (left, right) = node.data, node.children
        kind, function = _OPERATORS[op]
        if op == "add" and isinstance(a, str):
            b = self.evaluate(right, local)
            if not isinstance(b, str):
                raise _Unsupported("a string joined with a value that is not a string", node)
            if len(a) + len(b) > 80:  # (RAPID's string; s := s + s in a FOR loop doubled it out of memory)
                raise _Unsupported("a string of more than 80 characters (what a RAPID string holds)", node)
            return a + b, "string"
        vector = op in ("add", "sub", "mul") and isinstance(a, list)  # (pos + pos, pos * num, orient * orient, ...)
        if kind in ("num", "order") and not vector:  # (the left operand checked before the right one is read)
            a = self._as_number(a, left)
        b = self.evaluate(right, local)
        if vector or op == "mul" and isinstance(b, list):  # (or num * pos)
            shapes = tuple(len(v) if isinstance(v, list) and all(map(_number, v)) else 0 if _number(v) else -1
                           for v in (a, b))
            x, y = (np.array(v, dtype=float) if isinstance(v, list) else float(v) for v in (a, b))  # type: ignore[arg-type]
            if op == "mul" and shapes in ((3, 0), (0, 3)):
                value, dtype = x * y, "pos"
            elif shapes == (3, 3):
                value, dtype = x + y if op == "add" else x - y if op == "sub" else np.cross(x, y), "pos"
            elif op == "mul" and shapes == (4, 4):
                value, dtype = np.array([x[0] * y[0] - x[1:] @ y[1:], *(x[0] * y[1:] + y[0] * x[1:]
                                                                       + np.cross(x[1:], y[1:]))]), "orient"
            else:
                raise _Unsupported(f"'{dict(add='+', sub='-', mul='*')[op]}' of values other than numbers, a pos and a "
                                   "pos or a num, or two orients", node)
            if not np.all(np.abs(value) <= NUM_MAX):
                raise _Unsupported(f"a {dtype} out of range (RAPID num holds at most {NUM_MAX:.2g})", node)
            return value.tolist(), dtype
        if kind == "bool" and not (isinstance(a, bool) and isinstance(b, bool)):
            raise _Unsupported(f"{op.strip('_').upper()} of values that are not bool", node)
        if kind == "any" and type(a) is not type(b):  # (= and <>: values of one type)
            raise _Unsupported("a comparison of values of different types", node)
        if kind in ("num", "order"):
            b = self._as_number(b, right)
        if kind == "order" or kind == "any" and _number(a):
            return compared(function, a, b, node), "bool"
        if kind != "num":
            return function(a, b), "bool"
        if op in ("div", "int_div", "mod"):
            if b == 0:
                raise _Unsupported("division by zero", right)
            if op != "div":  # (DIV, MOD: of whole numbers)
                a, b = (float(self.check_integer(v, f"{op[-3:].upper()} operand", right)) for v in (a, b))
        value = function(a, b)
        if not abs(value) <= NUM_MAX:
            raise self.error(f"the value of this expression is out of range (RAPID num holds at most {NUM_MAX:.2g})",
                             node)
        return value, "num"

    def _number(self, node, local) -> float:
        return self._as_number(self.evaluate(node, local), node)

    @staticmethod
    def _as_number(value: object, node) -> float:
        if isinstance(value, bool) or not isinstance(value, float):
            raise _Unsupported(f"expected a number, got {_describe(value)}", node)
        return value

    def check_integer(self, value: float, what: str, where: Tree | Token) -> int:
        """``value`` as an int: a whole number within :data:`INT_MAX`; else an :class:`InputError` naming ``what``."""
        if not (value == value and abs(value) <= INT_MAX and value == int(value)):
            raise self.error(f"{what}: expected a whole number within +-{INT_MAX:,} (an integer a RAPID num holds "
                             f"exactly), got {value:g}", where)
        return int(value)

    # ----- functions
    @staticmethod
    def split_args(call_args: Tree | None) -> tuple[list, dict[str, Tree | None]]:
        """Positional arguments (trees) and optional ones (``\\name`` -> value tree or None), by lower-case name."""
        positional, optional = [], {}
        for arg in () if call_args is None else call_args.children:
            if isinstance(arg, Tree) and arg.data == "opt_arg":
                optional[str(arg.children[0]).lower()] = arg.children[1] if len(arg.children) > 1 else None
            else:
                positional.append(arg)
        return positional, optional

    def call_function(self, node: Tree, local) -> tuple[object, str]:
        """A function's value (:data:`EVALUATED`, or a FUNC of the task); :class:`_Unsupported` where not known."""
        name = str(node.children[0])
        positional, optional = self.split_args(node.children[1] if len(node.children) > 1 else None)
        key = name.lower()
        if key == "dim":  # Dim(ArrPar, DimNo): an array's size along one dimension (its declaration's, not a read)
            if len(positional) != 2 or optional:
                raise self.error(f"{name}: expected an array and a dimension number, got {len(positional)} "
                                 "argument(s)", node)
            array_key = str(positional[0].children[0]).lower() if getattr(positional[0], "data", "") == "name" else ""
            data = (local or {}).get(array_key) or self.module_data.get(array_key)
            rank = data.type.count(",") + 1 if data is not None and data.type.endswith("}") else 0
            dimension = self.check_integer(self._number(positional[1], local), f"{name} dimension", node)
            if not rank or not isinstance(array := data.value, list):  # type: ignore[union-attr]
                raise _Unsupported(f"{name} of a value that is not an array of known size", node)
            if not 1 <= dimension <= rank:
                raise self.error(f"{name}: the array has {rank} dimension(s), got dimension {dimension}", node)
            return float(_sizes(array, data.type)[dimension - 1]), "num"  # type: ignore[union-attr]
        if key == "present":  # Present(OptPar): whether the call being followed gave that optional parameter
            param = str(positional[0].children[0]).lower() if len(positional) == 1 and positional[0].data == "name" \
                else None
            if id(local) not in self._present or param not in self._params.get(id(local), ()):
                raise _Unsupported("Present of no optional parameter of a call followed here", node)
            return param in self._present[id(local)], "bool"
        if key in FUNCTIONS:
            args = [self.evaluate(a, local) for a in positional]
            switches = {k: None if v is None else self.evaluate(v, local) for k, v in optional.items()}
            if not _known([args, [v for v in switches.values() if v is not None]]):
                raise _Unsupported(f"{name} of a value known only while running", node)
            kinds = FUNCTIONS[key][0] if len(args) == len(FUNCTIONS[key][0]) else ()  # (else a count refused, below)
            for i, (kind, arg, value) in enumerate(zip(kinds, positional, args), 1):
                self.check_record(value, kind, arg, f"{name}: argument {i}: ")
            try:
                return evaluate_function(key, args, switches)
            except FunctionError as exc:
                raise self.error(f"{name}: {exc}", node) from None
        if key in self.funcs:
            return self.evaluate_func(self.funcs[key], name, node, local)
        if key in ("crobt", "cjointt"):  # (where the robot stands: after a motion to a known stop point)
            return self.standing_value(node, local)
        if key == "calcrobt":
            raise _Unsupported(CALC_ROBT, node)
        if (hidden := self.scopes.elsewhere("func", key)) is not None:
            raise _Unsupported(f"function {name} is {self.local_elsewhere(hidden)}", node)
        raise _Unsupported(f"function {name} is not evaluated (only Offs, RelTool, RAPID's arithmetic and string "
                           "functions and the task's own FUNCs)", node)

    def evaluate_func(self, func: Tree, name: str, node: Tree, local) -> tuple[object, str]:
        """A call of the task's own ``FUNC``: its body run as a routine's (:meth:`.rapid_flow._Flow.run_body`: its
        declarations, assignments, ``IF``, ``TEST``, ``FOR`` and ``WHILE``) until a ``RETURN``, which ends a function's
        evaluation (ABB "Technical reference manual - RAPID overview", "Routine termination"). Its value is known
        where every ``RETURN`` reached gives one known value: a condition decided only while running runs each of its
        branches, whose values must agree (:meth:`returned`). Its own data are its own; a module datum it assigns is
        given its value (as a PROC's assignment gives it, the datum holding it after the call) only where the walker
        runs the statement holding the call (:attr:`running`), once however often that statement's parts are
        evaluated; anywhere else (a condition, a loop's bounds, a look ahead) such a FUNC is not evaluated."""
        running = self.running
        if running is not None and (id(node), id(local)) in running.done:
            return running.done[id(node), id(local)][1]
        if any(run.name.lower() == name.lower() for run in self._funcs_run) or len(self._funcs_run) >= MAX_FUNC_DEPTH:
            raise _Unsupported(f"function {name} calls itself (or nests more than {MAX_FUNC_DEPTH} deep)", node)
        if not self._funcs_run:
            self._gives = running is not None and any(sub is node for sub in running.statement.find_data("func_call"))
        marks, outside, gave = dict(self.marks), set(self.outside), 0 if running is None else running.gave
        rtype = self.base_type(str(next(c for c in func.children if getattr(c, "type", "") == "NAME")).lower())
        self._funcs_run.append(_FuncRun(name, rtype, running, len(self._unresolved), local))
        try:
            scope = self.bind_arguments(func, node.children[1] if len(node.children) > 1 else None, local, node)
            found = self.func_value(func, scope, node), rtype
            if running is not None and running.gave != gave:
                running.done[id(node), id(local)] = (local, found)
            return found
        finally:
            self._funcs_run.pop()
            given = set() if running is None else running.given
            self.marks = {**marks, **{k: self.marks[k] for k in given if k in self.marks}}
            self.outside = {k for k in outside if k not in given} | (self.outside & given)

    def assign_in_func(self, statement: Tree, local: dict[str, _Data]) -> None:
        """An assignment in the body of the FUNC being evaluated: to its own data; or, where the FUNC is called from
        the statement the walker runs (:meth:`evaluate_func`), to a module datum, given its value, or to an ``INOUT``,
        ``VAR`` or ``PERS`` parameter bound to a whole datum of the caller, which it changes as a PROC's assignment
        does (:meth:`assign`: known only while running from that statement on; a function "gains full (read/write)
        access to the argument": ABB "Technical reference manual - RAPID overview", "Function calls"). A value not
        known refuses the FUNC."""
        run = self._funcs_run[-1]
        root = self.changed_root(statement.children[0])
        key = None if root is None else str(root).lower()
        by_reference = key in self._by_reference.get(id(local), ())
        bound = local[key].name.lower() if by_reference else key  # type: ignore[index]  (the caller's datum)
        own = key in local and not by_reference
        if not own and not (self._gives and ((run.caller if run.caller is not None and bound in run.caller else
                                              self.module_data).get(bound) is local[key] if by_reference  # type: ignore[index]
                                             else key in self.module_data)):
            raise _Unsupported(f"function {run.name} assigns data that is not its own", statement)
        if not own:  # (a module datum: a value known only while running refused naming what it reads)
            if not by_reference:
                self.evaluate(statement.children[-1], local)
            run.running.given.add(bound)  # type: ignore[union-attr,arg-type]
            run.running.gave += 1  # type: ignore[union-attr]
        self.assign(statement, local)
        if not by_reference and self.changed_at(key) is not None:  # type: ignore[arg-type]
            raise _Unsupported(f"function {run.name}: a value known only while running", statement)

    # ----- assignments and data changed at run time
    def assign(self, statement: Tree, local: dict[str, _Data]) -> None:
        """``x := value;``, ``wobj.oframe.trans.z := 25;``, ``pArr{i}.trans.x := 5;``: a datum of this routine or of
        the module (or a part of one whose value is known) given a value known here is followed (later reads see it);
        anything else makes the datum changed at run time (:meth:`record_change`)."""
        steps: list[Tree] = []
        root, value_node = self.changed_root(statement.children[0], steps), statement.children[-1]
        key = None if root is None else str(root).lower()
        scope = local if key in local else (self.module_data if key in self.module_data else None)
        data = None if scope is None else scope[key]  # type: ignore[index]
        changed = self.marks.get(key, _NO_MARK).changed  # type: ignore[arg-type]
        left = changed if data is not None and steps and steps[0].data == "index" and isinstance(data.value, list) \
            and any(changed is construct for construct in self._unresolved) else None  # (:attr:`_Mark.left`)
        if data is None or key in self._by_reference.get(id(local), ()) or (
                (changed is not None and left is None or data.value is None) if steps
                else self.fields_of(data.type) is None and data.type not in _ATOMIC and not (
                    data.type.endswith("}") and isinstance(data.value, list))):  # (a whole array: its sizes known)
            self.record_change(statement, local)
            return
        stood_reads = self._stood_reads
        try:  # (a part is given into a copy: not a read the next cycle depends on, the part is overwritten)
            box = [None if not steps else _copy(data.value) if left is None else _without_values(  # (the others: what
                data.value, data.type.count(",") + 1)]  # an earlier pass may have left them)
            holder, at, dtype = box, 0, data.type
            for step in steps:
                holder, at, dtype = self._into(holder[at], dtype, step, local, data.name)
            if steps or not dtype.endswith("}"):
                holder[at] = self.evaluate_as(value_node, local, dtype)
            else:  # (a whole array: of the sizes it has)
                holder[at] = self.evaluate(value_node, local)
                self.check_array(holder[at], _sizes(data.value, dtype), dtype[:dtype.index("{")], data.name, value_node)
            value = box[0]
        except _Unsupported as exc:
            self.record_change(statement, local)
            if isinstance(exc, (_NotStanding, _PathsDiffer)):
                self.stand_why[id(statement)] = (statement, exc.message)
            behind = self.carried_behind(exc.where)
            if behind is not None:
                self._behind[id(statement)] = (statement, behind)
            return
        literal = value_node if not steps and isinstance(value_node, Tree) and value_node.data in (
            "aggregate", "numbers") else None  # (where the value is written: else a motion's target is, at the motion)
        scope[key] = dataclasses.replace(scope[key], value=value, node=literal, file=self.file)  # type: ignore[index]
        if self._stood_reads != stood_reads:  # (a condition reading it is decided only while running: the
            self.stood[id(scope[key])] = (scope[key], statement)  # controller reads the corrected target there)
        self._cache = {k: v for k, v in self._cache.items() if k[1] != key}
        if self.load_part(statement.children[0], local):  # (a tool's load given: no point reads it, no cycle differs)
            return
        mark = self.marks.get(key, _NO_MARK)  # type: ignore[arg-type]
        followed = mark.followed
        if scope is self.module_data or id(scope) in self._cycle_scopes:  # (a routine's own: afresh every call)
            followed = (value, (followed or (None, statement))[1])  # the first assignment's line
        self.marks[key] = _Mark(joined=mark.joined, followed=followed, given=(  # (one of the values it may have:
            statement, self._unresolved[-1]) if self._unresolved else None,  # :meth:`_Flow.check_paths`)
            left=left or (mark.left if steps else None))  # (a whole value given: every element known)
        reads = {str(n.children[0]).lower() for n in value_node.find_data("name")} if isinstance(value_node, Tree) else ()
        (self.outside.add if any(r in self.outside or "pers" in self.storages.get(r, ()) and self.marks.get(
            r, _NO_MARK).followed is None for r in reads) else self.outside.discard)(key)  # type: ignore[arg-type]

    def _into(self, value: object, dtype: str, step: Tree, local, name: str) -> tuple[list, int, str]:
        """The list holding the part of ``value`` (``dtype``) that ``step`` names, the part's place in it and type."""
        if step.data == "component":
            fields = self.fields_of(dtype) or ()
            names = [f for f, _ in fields]
            field = str(step.children[1]).lower()
            if field not in names or not isinstance(value, list):
                raise _Unsupported(f"component {step.children[1]} of a {dtype or 'value of unknown type'}", step)
            return value, names.index(field), fields[names.index(field)][1]
        path = self._indices(value, dtype, step, local, name)
        for i in path[:-1]:
            value = value[i]
        return value, path[-1], dtype[:dtype.index("{")]  # type: ignore[return-value]

    def check_cycles(self) -> None:
        """Data of the module a cycle reads before an assignment gives (or a statement not followed may give) it
        another value: the next cycle reads that one. Each is put in :attr:`carried`, with that value and statement:
        the module is then followed again from it (``rapid``); where the next cycle is not the same, once more with
        them changed at run time from the cycle's start, as an input is, so that a counter no motion's data read
        stops nothing and a condition on it is not resolved."""
        followed = [(key, mark.followed) for key, mark in self.marks.items() if mark.followed is not None]
        changed = [(key, (None, mark.changed)) for key, mark in self.marks.items() if mark.changed is not None
                   and (key in self.module_data or key in self._cycle_scope) and mark.followed is None]
        for key, (value, statement) in [*followed, *changed]:
            read = self._first_read.get(key)
            data = self._cycle_scope.get(key) or self.module_data.get(key)
            timing_only = data is not None and data.type in ("speeddata", "loaddata")
            if read is not None and read[0] != value and not timing_only:  # (a speed changes times, not targets)
                self.carried.setdefault(key, (value, statement))
                self.unsupported_at(f"{read[1]} is read here before line {line_col(statement)[0]} "
                                    f"{'may give' if value is None else 'gives'} it another value: the next "
                                    "cycle would read that one", read[1])

    def carry_into_cycle(self, local: dict[str, _Data]) -> None:
        """At a cycle's start: the data :attr:`carried_in` from a cycle to the next have the value it leaves them, or
        where it is not known, are changed at run time (by the statement that gives them the next cycle's value).
        ``local``: the entry routine's data, where the cycle is a pass of its production loop."""
        for key, (value, statement) in self.carried_in.items():
            scope = local if key in local else self.module_data
            if value is None or key not in scope:
                self.marks[key] = dataclasses.replace(self.marks.get(key, _NO_MARK), changed=statement, followed=None)
            else:
                scope[key] = dataclasses.replace(scope[key], value=_copy(value))

    def carried_behind(self, where: Tree | Token) -> str | None:
        """The datum carried from cycle to cycle (:meth:`carry_into_cycle`) behind a value a lookup of ``where`` (a
        name) found not known: ``where`` itself where it is that datum, else the one behind the assignment that changed
        it; None for any other."""
        changed = self.marks.get(str(where).lower(), _NO_MARK).changed if isinstance(where, Token) else None
        if changed is not None and self.carried_in.get(str(where).lower(), (0, None))[1] is changed:
            return where
        return self._behind.get(id(changed), (None, None))[1]

    def changed_tokens(self, node: Tree) -> list[Token | str]:
        """The names of the data ``node`` changes: an assignment's root, the arguments a routine writes (the base's,
        :data:`WRITES`; the task's, :meth:`_Flow.summary`; one found nowhere: every one), what a ``WaitUntil`` waits on."""
        if node.data == "assign":
            root = self.changed_root(node.children[0])
            return [] if root is None or self.load_part(node.children[0]) else [root]
        if node.data not in ("call", "func_call") or not isinstance(node.children[0], Token):
            return []
        key, call = str(node.children[0]).lower(), node.data == "call"
        routine = (self.procs if call else self.funcs).get(key)
        if routine is not None:
            found = self.summary(routine)
            return [*sorted(found.changed), *self.written_arguments(node, *found.written)]
        if call and key == "waituntil" and len(node.children) > 1:  # (it waits for its condition to come true: the
            # data it reads are changed by another task, an interrupt or the operator, not by this path)
            return [t for t in node.children[1].scan_values(lambda v: isinstance(v, Token) and v.type == "NAME")
                    if self.storages.get(str(t).lower(), {"const"}) != {"const"}]
        if self.found_nowhere(key) if call else key not in WRITES and key not in EVALUATED:  # (a routine found
            # nowhere: every datum passed to it but a CONST, which RAPID refuses as a VAR, PERS or INOUT argument)
            return [t for t in self.written_arguments(node, (-1,), None if call else frozenset())
                    if self.storages.get(str(t).lower()) != {"const"}]
        return self.written_arguments(node, *WRITES.get(key, ((), frozenset())))

    def written_arguments(self, call: Tree, places: tuple[int, ...], names: frozenset[str] | None) -> list[Token]:
        """The data named whole (or a part of: ``p.trans``, ``a{i}``) by the arguments of ``call`` at ``places``
        among the required ones (``(-1,)``: every one) and by its optional arguments ``names`` (None: every one)."""
        positional, optional = self.split_args(call.children[1] if len(call.children) > 1 else None)
        written = [a for i, a in enumerate(positional) if i in places or places == (-1,)]
        written += [v for k, v in optional.items() if v is not None and (names is None or k in names)]
        return [t for t in map(self.changed_root, written) if t is not None]

    def record_change(self, statement: Tree, local: dict[str, _Data]) -> None:
        """The data ``statement`` and the functions it calls change are changed at run time from now on."""
        calls = statement.find_data("func_call") if statement.data in ("assign", "call") else ()
        for node in (statement, *calls):
            for token in self.changed_tokens(node):
                self.mark_changed(token, statement, local)

    def mark_changed(self, token: Token | None, statement: Tree, local: dict[str, _Data]) -> None:
        """The datum named ``token`` is changed at run time from ``statement`` on (where it is not already), and so
        is the caller's datum an ``INOUT``, ``VAR`` or ``PERS`` parameter of that name is bound to (passed by reference;
        an ``IN`` parameter is the routine's own copy). A mark of an enclosing construct not resolved (what it may
        assign, marked at its start) gives way to the statement inside it: a refusal names its line, not the construct's."""
        if token is None:
            return
        key = str(token).lower()
        for name in (key, local[key].name.lower()) if key in self._by_reference.get(id(local), ()) else (key,):
            mark = self.marks.get(name, _NO_MARK)
            if mark.changed is None or any(mark.changed is construct for construct in self._unresolved):
                self.marks[name] = dataclasses.replace(mark, changed=statement)

    def changed_inside(self, construct: Tree, key: str) -> Tree | None:
        """The first assignment or call inside ``construct`` that changes the datum ``key`` (None: none found)."""
        at = ("inside", id(construct), key)  # (found once: each motion reading the datum is refused naming it)
        if at not in self._cache:
            self._cache[at] = next((node for node in construct.iter_subtrees_topdown() if node.data in _CHANGING
                                    and any(str(t).lower() == key for t in self.changed_tokens(node))), None)
        return self._cache[at]

    def changed_at(self, key: str) -> Tree | Token | None:
        """The statement from which the datum ``key`` is changed at run time; None where the path knows its value."""
        return self.marks.get(key, _NO_MARK).changed

    @staticmethod
    def changed_root(target: Tree | Token, steps: list[Tree] | None = None) -> Token | None:
        """The name at the root of ``p``, ``p.trans.x`` or ``p{2}`` (None for anything else); the ``component`` and
        ``index`` trees from it to ``target`` put into ``steps``."""
        while isinstance(target, Tree) and target.data in ("component", "index"):
            if steps is not None:
                steps.insert(0, target)
            target = target.children[0]
        return target.children[0] if isinstance(target, Tree) and target.data == "name" else None

    def load_part(self, target: Tree | Token, local: dict[str, _Data] | None = None) -> bool:
        """Whether ``target`` (of an assignment) is in a ``loaddata`` part of a datum (of ``local``, else of the
        module): a tool's ``tload`` (``tTool.tload``, ``tools{2}.tload.mass``), the payload the controller's dynamics
        use. No point reads it, and neither does the timing (a speed part does: it stays a change)."""
        steps: list[Tree] = []
        root = self.changed_root(target, steps)
        key = None if root is None else str(root).lower()
        data = (local or {}).get(key) or self.module_data.get(key)  # type: ignore[arg-type]
        dtype = "" if data is None else data.type
        for step in steps:
            if step.data == "index":
                dtype = dtype[:dtype.index("{")] if dtype.endswith("}") else ""
            else:
                dtype = dict(self.fields_of(dtype) or ()).get(str(step.children[1]).lower(), "")
            if dtype in ("", "loaddata"):
                return dtype == "loaddata"
        return False

    # ----- the data a motion reads
    def cached(self, node, local, dtype: str):
        """:meth:`evaluate_as` of a plain name, evaluated once per name (tools, work objects and speeds repeat)."""
        if not (isinstance(node, Tree) and node.data == "name"):
            return self.evaluate_as(node, local, dtype)
        key = (dtype, str(node.children[0]).lower(), id(local) if str(node.children[0]).lower() in local else 0)
        mark = self.marks.get(key[1], _NO_MARK)
        given = mark.given is not None or key[2] and self.marks.get(local[key[1]].name.lower(), _NO_MARK).given \
            is not None  # (read again: :meth:`lookup` tags it)
        if mark.changed is not None or given or key not in self._cache:
            self._cache[key] = self.evaluate_as(node, local, dtype)
        return self._cache[key]

    def frame(self, node, local, dtype: str) -> tuple[FloatArray, bool]:
        """A ``tooldata``'s ``tframe`` or a ``wobjdata``'s ``uframe @ oframe``, ``(4, 4)`` [m], and its ``robhold``.

        ``tframe`` is in the flange (robhold TRUE) or the world; ``uframe`` in the world or, robhold TRUE, the
        flange. A work object moved by a mechanical unit (``ufmec``) or a quaternion not normalisable is refused. A
        datum's (:meth:`cached`) is found once while its value stays: one array (read only), every run's."""
        value = self.cached(node, local, dtype)
        known = self._cache.get(("frame", id(value), dtype))
        if known is not None and known[0] is value:  # (the value kept with it: its id stays its)
            return known[1]
        if dtype == "wobjdata" and value[2] != "":
            raise _Unsupported(f"a work object moved by a mechanical unit (ufmec \"{value[2]}\") is not supported",
                               node)
        poses = {"tframe": value[1]} if dtype == "tooldata" else {"uframe": value[3], "oframe": value[4]}
        for part, pose in poses.items():
            norm = math.sqrt(sum(float(q) * float(q) for q in pose[1]))
            if not (math.isfinite(norm) and norm > 1e-9):
                raise self.error(f"{dtype} {part} orientation: expected a unit quaternion [q1, q2, q3, q4], got norm "
                                 f"{norm:.6g}", node)
        T = [_T_from_pose(pose) for pose in poses.values()]
        found = (T[0] if len(T) == 1 else T[0] @ T[1]), value[0] is True
        if isinstance(node, Tree) and node.data == "name":
            found[0].flags.writeable = False
            self._cache[("frame", id(value), dtype)] = (value, found)
        return found


def _number(value: object) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def compared(function: Callable[[float, float], bool], a: float, b: float, node: Tree) -> bool:
    """``function(a, b)`` (a comparison of two numbers), refused where it differs in 32 bits, the controller's ``num``
    (``0.1 + 0.2 = 0.3`` is FALSE in 64 bits, TRUE in 32)."""
    got = function(a, b)
    if got != function(np.float32(a), np.float32(b)):
        raise _Unsupported("a comparison of decimal numbers whose outcome depends on their rounding (the controller "
                           "holds a num in 32 bits): known only while running", node)
    return got


#: RAPID's binary operators by the node rapid.lark names after them: the kind of operands they take (``num``,
#: ``order``: two numbers compared, ``any``: two values of one type, ``bool``) and the operation.
_OPERATORS: dict[str, tuple[str, Callable]] = {
    "add": ("num", operator.add), "sub": ("num", operator.sub), "mul": ("num", operator.mul),
    "div": ("num", operator.truediv), "int_div": ("num", operator.floordiv), "mod": ("num", operator.mod),
    "lt": ("order", operator.lt), "le": ("order", operator.le), "gt": ("order", operator.gt),
    "ge": ("order", operator.ge), "eq": ("any", operator.eq), "ne": ("any", operator.ne),
    "and_": ("bool", operator.and_), "or_": ("bool", operator.or_), "xor": ("bool", operator.xor),
}

#: How each kind of expression node is evaluated (:meth:`_Declarations.evaluate_typed`): node, scope -> value, type.
_EVALUATORS: dict[str, Callable[[_Declarations, Tree, dict | None], tuple[object, str | None]]] = {
    "number": _Declarations.literal,
    "string": lambda self, node, local: (str(node.children[0])[1:-1].replace('""', '"'), "string"),
    "name": _Declarations._name,
    "aggregate": lambda self, node, local: ([self.evaluate(c, local) for c in node.children], None),
    "numbers": _Declarations._numbers,
    "signed": _Declarations._unary,
    "not_": _Declarations._unary,
    **dict.fromkeys(_OPERATORS, _Declarations.operation),
    "component": _Declarations._component,
    "index": _Declarations._element,
    "func_call": _Declarations.call_function,
}

#: RAPID's functions of a datum's declaration rather than its value (an array's size, whether an optional parameter
#: was given), evaluated by :meth:`_Declarations.call_function`.
_DECLARATION_FUNCTIONS = frozenset(("dim", "present"))

#: Every function evaluated here, by lower-case name: RAPID's of known values (:mod:`.rapid_functions`) and those of
#: declarations; any other is a FUNC of the task (evaluated when it can be) or known only while running.
EVALUATED: frozenset[str] = frozenset(FUNCTIONS) | _DECLARATION_FUNCTIONS


def _T_from_pose(pose) -> FloatArray:
    """A RAPID ``pose`` ``[[x, y, z] mm, [q1..q4] (w, x, y, z)]`` as a ``(4, 4)`` transform [m], the quaternion
    normalised; in plain Python: for one pose numpy's per-call cost would dominate."""
    (x, y, z), (w, a, b, c) = pose[0], pose[1]
    s = 1.0 / (w * w + a * a + b * b + c * c)
    return np.array([
        [1 - 2 * s * (b * b + c * c), 2 * s * (a * b - w * c), 2 * s * (a * c + w * b), x * 1e-3],
        [2 * s * (a * b + w * c), 1 - 2 * s * (a * a + c * c), 2 * s * (b * c - w * a), y * 1e-3],
        [2 * s * (a * c - w * b), 2 * s * (b * c + w * a), 1 - 2 * s * (a * a + b * b), z * 1e-3],
        [0.0, 0.0, 0.0, 1.0],
    ])


def _same(a: object, b: object) -> bool:
    """``a`` and ``b`` are one value of one type (nested lists of numbers, strings, bools)."""
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    return type(a) is type(b) and a == b


def _known(value: object) -> bool:
    """``value`` holds no unknown part (None) at any depth."""
    return value is not None and (not isinstance(value, list) or all(_known(v) for v in value))


def _sizes(value: list, dtype: str) -> list[int]:
    """The sizes of the array ``value`` of type ``dtype`` (``num{,}``: two dimensions), one a dimension."""
    sizes = []
    for _ in range(dtype.count(",") + 1):
        sizes.append(len(value))
        value = value[0] if value else []
    return sizes


def _without_values(value: list, dimensions: int) -> list:
    """An array of the shape of ``value`` (of ``dimensions`` dimensions) whose elements hold no value (None)."""
    return [None if dimensions == 1 else _without_values(v, dimensions - 1) for v in value]


def _copy(value):
    return [_copy(v) for v in value] if isinstance(value, list) else value


def _describe(value: object) -> str:
    if isinstance(value, list):
        return f"an aggregate of {len(value)} components"
    if isinstance(value, bool):
        return "a bool"
    if isinstance(value, float):
        return f"the number {value:g}"
    if isinstance(value, str):
        return f"the string {value!r}"
    return "no value"
